// Unordered inserts report every failed document; when all failures are unique-index
// violations, the documents exist already (a concurrent writer created them) and that is fine.
import { DUPLICATE_KEY_CODE, isDuplicateKeyError } from '../../platform/database/collection.js';

export function onlyDuplicateKeys(err: unknown): boolean {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  const errors = Array.isArray(list) ? list : list ? [list] : [];
  if (errors.length === 0) return isDuplicateKeyError(err);
  return errors.every((e) => (e as { code?: unknown }).code === DUPLICATE_KEY_CODE);
}
