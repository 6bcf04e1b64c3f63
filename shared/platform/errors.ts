// Domain errors. Use cases throw these; the API maps them to HTTP with one table
// (api/middleware/errors.ts), workers log them.
import type { RepoRef } from './repo-ref.js';

export interface ErrorDetail {
  /** JSON pointer of the offending field, e.g. `/repo/host`. */
  path: string;
  message: string;
  keyword?: string;
}

export type ErrorKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'rate_limited' | 'unavailable';

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** snake_case, stable: clients may branch on it. */
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** Sent as Retry-After with a 429 or 503. */
    readonly hints: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const invalid = (code: string, message: string, details: ErrorDetail[] = []) => new AppError('invalid', code, message, details);
export const notFound = (code: string, message: string) => new AppError('not_found', code, message);
export const forbidden = (code: string, message: string) => new AppError('forbidden', code, message);
export const conflict = (code: string, message: string) => new AppError('conflict', code, message);
export const unavailable = (code: string, message: string) => new AppError('unavailable', code, message);

/** A compare-and-set kept losing to concurrent writers (see shared/compare-and-set.ts). */
export const concurrentUpdate = (what: string) => conflict('concurrent_update', `${what} was changed concurrently too many times; retry`);

export const repositoryNotFound = (repo: RepoRef, message = `repository ${repo.host}/${repo.owner}/${repo.name} was not found`) =>
  notFound('repository_not_found', message);
