// The `stack` field of an entry on the wire: present only for a member of a stack, so answers for
// lone pull requests stay exactly the compatible API's.
import type { Entry } from '../../../shared/merge-queue/domain/model.js';

export function stackField(e: Entry) {
  if (!e.stack) return {};
  const { id, position, size, belowPr } = e.stack;
  return { stack: { id, position, size, belowPrNumber: belowPr } };
}
