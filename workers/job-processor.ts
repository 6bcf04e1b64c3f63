// The processor of a job is typed by the catalogue: a processor for another job's payload, or a
// registry missing a job, does not compile.
import { UnrecoverableError, type Job } from 'bullmq';
import type { JobName, JobPayloads } from '../shared/jobs/job-catalogue.js';
import { jobFailureAction } from '../shared/jobs/job-failures.js';
import type { Logger } from '../shared/logging.js';

export type JobProcessor<K extends JobName> = (job: Job<JobPayloads[K]>) => Promise<void>;

export type ProcessorRegistry = { readonly [K in JobName]: JobProcessor<K> };

/** Runs a processor and applies the failure table (shared/jobs/job-failures.ts) to what it throws. */
export function withFailurePolicy<K extends JobName>(name: K, processor: JobProcessor<K>, logger: Logger): JobProcessor<K> {
  return async (job) => {
    try {
      await processor(job);
    } catch (err) {
      const action = jobFailureAction(err);
      const message = err instanceof Error ? err.message : String(err);
      if (action === 'log') {
        logger.warn({ queue: name, jobId: job.id, err: message }, 'job has nothing left to do');
        return;
      }
      if (action === 'give_up') throw new UnrecoverableError(message);
      throw err;
    }
  };
}
