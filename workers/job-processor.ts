// What surrounds every processor when a job arrives: its payload checked against the catalogue's
// schema (a job that does not match is given up, never half-processed), then the failure table
// applied to what the processor throws.
import { UnrecoverableError, type Job } from 'bullmq';
import { Compile } from 'typebox/compile';
import type { JobEnvelope, JobProcessor, JobSpec, JobCatalogue } from '../shared/platform/jobs/job-catalogue.js';
import { jobFailureAction } from '../shared/platform/jobs/job-failures.js';
import type { Logger } from '../shared/platform/logging.js';

/** Runs job `name`'s processor on checked payloads, applying the failure table (shared/platform/jobs/job-failures.ts). */
export function guardedProcessor<C extends JobCatalogue, K extends keyof C & string>(
  name: K,
  spec: JobSpec,
  processor: JobProcessor<C, K>,
  logger: Logger,
): (job: Job<unknown>) => Promise<void> {
  const payload = Compile(spec.payload);
  return async (job) => {
    if (!payload.Check(job.data)) {
      const problems = payload
        .Errors(job.data)
        .slice(0, 3)
        .map((e) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ');
      logger.error({ queue: name, jobId: job.id, problems }, 'job payload does not match its schema; given up');
      throw new UnrecoverableError(`the payload of ${name} does not match its schema: ${problems}`);
    }
    try {
      await processor(job as Job<Parameters<JobProcessor<C, K>>[0]['data'] & JobEnvelope>);
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
