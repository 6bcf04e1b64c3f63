// Retrying a compare-and-set: read, decide, write conditioned on what was read; when another
// writer got there first, read again and decide again, a bounded number of times.
import { concurrentUpdate } from './errors.js';

/** How many times a compare-and-set is retried against concurrent writers before giving up. */
export const CAS_ATTEMPTS = 20;

/** What an attempt returns when its conditional write lost to another writer. */
export const CAS_LOST: unique symbol = Symbol('compare-and-set lost');

/**
 * Runs `attempt` until it returns something other than CAS_LOST; after CAS_ATTEMPTS losses,
 * a 409 concurrent_update naming `what` (e.g. "the queue").
 */
export async function retryCompareAndSet<T>(what: string, attempt: () => Promise<T | typeof CAS_LOST>): Promise<T> {
  for (let i = 0; i < CAS_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== CAS_LOST) return result;
  }
  throw concurrentUpdate(what);
}
