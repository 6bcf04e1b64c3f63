// What a job does when its processor throws, by the kind of domain error: one table, as the API
// has one from domain errors to HTTP statuses (api/middleware/errors.ts).
import { AppError, type ErrorKind } from '../errors.js';

/**
 * - `retry`: the cause may pass (a lost compare-and-set race, a dependency down); BullMQ tries
 *   again with the job's backoff until its attempts are spent.
 * - `give_up`: trying again cannot help (the stored data is invalid); the job fails at once.
 * - `log`: the work has nothing left to do (what it was about is gone); the job completes with a
 *   warning in the log.
 */
export type JobFailureAction = 'retry' | 'give_up' | 'log';

export const JOB_FAILURE_ACTIONS: Readonly<Record<ErrorKind, JobFailureAction>> = {
  invalid: 'give_up',
  unauthenticated: 'give_up',
  forbidden: 'give_up',
  not_found: 'log',
  conflict: 'retry',
  too_large: 'give_up',
  rate_limited: 'retry',
  unavailable: 'retry',
};

/** Errors that are not domain errors (git, the database driver, a bug) are retried. */
export function jobFailureAction(err: unknown): JobFailureAction {
  return err instanceof AppError ? JOB_FAILURE_ACTIONS[err.kind] : 'retry';
}
