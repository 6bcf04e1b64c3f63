// wake: a delayed planning pass (it goes through the deduplicated plan queue, so a wake-up never
// plans a queue concurrently with another pass).
import type { Job } from 'bullmq';
import type { WakeJob } from '../../shared/jobs/job-types.js';
import type { ServiceContext } from '../../shared/runtime/context.js';

export function wakeProcessor(ctx: ServiceContext) {
  return async (job: Job<WakeJob>): Promise<void> => {
    await ctx.jobs.requestPlan(job.data.queueId, job.data.why);
  };
}
