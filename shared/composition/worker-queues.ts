// Which job queues a worker process serves, and how many jobs of each it runs at once, from three
// variables: WORKER_QUEUES (the queues to serve; all when unset), WORKER_EXCLUDE_QUEUES (queues
// not to serve) and WORKER_CONCURRENCY (`queue=n` pairs overriding the catalogue's defaults).
// Every name is checked against the catalogue so that a typo stops the process at start instead of
// leaving a queue that no process serves.
import type { JobCatalogue } from '../platform/jobs/job-catalogue.js';

export interface ServedQueue {
  name: string;
  concurrency: number;
}

export interface WorkerQueueVariables {
  WORKER_QUEUES?: string | undefined;
  WORKER_EXCLUDE_QUEUES?: string | undefined;
  WORKER_CONCURRENCY?: string | undefined;
}

export const MAX_QUEUE_CONCURRENCY = 256;

/** A comma-separated variable's values, trimmed, empty ones dropped. */
export const commaList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/**
 * The queues this process serves, in catalogue order, with their concurrency; problems are pushed
 * to `errors` (one per variable, naming what is wrong and what is accepted).
 */
export function servedQueues(env: WorkerQueueVariables, catalogue: JobCatalogue, errors: string[]): ServedQueue[] {
  const known = Object.keys(catalogue);
  const unknown = (names: string[]) => names.filter((n) => !known.includes(n));
  const accepted = `known queues: ${known.join(', ')}`;

  const include = env.WORKER_QUEUES === undefined ? null : commaList(env.WORKER_QUEUES);
  const exclude = commaList(env.WORKER_EXCLUDE_QUEUES);
  const before = errors.length;
  if (include !== null && include.length === 0) errors.push('WORKER_QUEUES: name at least one queue, or leave it unset to serve all');
  if (include !== null && unknown(include).length > 0) errors.push(`WORKER_QUEUES: unknown ${unknown(include).join(', ')} (${accepted})`);
  if (unknown(exclude).length > 0) errors.push(`WORKER_EXCLUDE_QUEUES: unknown ${unknown(exclude).join(', ')} (${accepted})`);
  const both = (include ?? []).filter((n) => exclude.includes(n));
  if (both.length > 0) errors.push(`WORKER_EXCLUDE_QUEUES: ${both.join(', ')} also in WORKER_QUEUES; name a queue in one of them`);

  const served = known.filter((n) => (include === null || include.includes(n)) && !exclude.includes(n));
  if (errors.length === before && served.length === 0) errors.push('WORKER_EXCLUDE_QUEUES: excludes every queue; a worker process must serve at least one');

  const concurrency = new Map<string, number>();
  for (const pair of commaList(env.WORKER_CONCURRENCY)) {
    const m = /^([a-z0-9-]+)=(\d+)$/.exec(pair);
    const n = m ? Number(m[2]) : NaN;
    if (!m || !(n >= 1 && n <= MAX_QUEUE_CONCURRENCY)) {
      errors.push(
        `WORKER_CONCURRENCY: "${pair}" must be queue=n with n a whole number from 1 to ${MAX_QUEUE_CONCURRENCY}, e.g. flaky-ingest=2,deliver-webhook=32`,
      );
    } else if (!known.includes(m[1]!)) {
      errors.push(`WORKER_CONCURRENCY: unknown ${m[1]} (${accepted})`);
    } else if (concurrency.has(m[1]!)) {
      errors.push(`WORKER_CONCURRENCY: ${m[1]} is given twice`);
    } else if (!served.includes(m[1]!)) {
      errors.push(`WORKER_CONCURRENCY: ${m[1]} is not served by this process (see WORKER_QUEUES and WORKER_EXCLUDE_QUEUES)`);
    } else {
      concurrency.set(m[1]!, n);
    }
  }
  return served.map((name) => ({ name, concurrency: concurrency.get(name) ?? catalogue[name]!.concurrency }));
}
