// Errors the embedded database raises, shaped like the driver's server errors (`code`, and for
// duplicate keys `keyPattern`/`keyValue`) so callers handle both databases with the same checks.
import { DUPLICATE_KEY_CODE, type BulkResult } from '../collection.js';
import { renderKeyValue } from './document-values.js';

/** MongoDB server error codes the embedded database reproduces. */
export const ErrorCode = {
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  ConflictingUpdateOperators: 40,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CannotIndexParallelArrays: 171,
  DuplicateKey: DUPLICATE_KEY_CODE,
} as const;

export class EmbeddedServerError extends Error {
  override readonly name: string = 'EmbeddedServerError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class DuplicateKeyError extends EmbeddedServerError {
  override readonly name = 'DuplicateKeyError';
  constructor(
    namespace: string,
    readonly index: string,
    readonly keyPattern: Record<string, 1 | -1>,
    readonly keyValue: Record<string, unknown>,
  ) {
    super(DUPLICATE_KEY_CODE, `E11000 duplicate key error collection: ${namespace} index: ${index} dup key: ${renderKeyValue(keyValue)}`);
  }
}

export interface WriteErrorInfo {
  /** Position of the failed operation in the batch. */
  index: number;
  code: number;
  errmsg: string;
  cause: unknown;
}

/**
 * Like the driver's MongoBulkWriteError: `code` is the first write error's code, and the counts
 * say what was applied before (ordered) or besides (unordered) the failures.
 */
export class BulkWriteError extends EmbeddedServerError {
  override readonly name = 'BulkWriteError';
  constructor(
    readonly writeErrors: WriteErrorInfo[],
    readonly result: BulkResult,
  ) {
    const first = writeErrors[0];
    super(first?.code ?? ErrorCode.BadValue, first?.errmsg ?? 'bulk write failed');
  }
  get insertedCount(): number {
    return this.result.insertedCount;
  }
  get matchedCount(): number {
    return this.result.matchedCount;
  }
  get modifiedCount(): number {
    return this.result.modifiedCount;
  }
  get deletedCount(): number {
    return this.result.deletedCount;
  }
  get upsertedCount(): number {
    return this.result.upsertedCount;
  }
}

/** The numeric code of a server-style error, or null for anything else (a bug, not a write error). */
export function errorCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : null;
}
