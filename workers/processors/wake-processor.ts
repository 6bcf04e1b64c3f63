// wake: a delayed planning pass (it goes through the deduplicated plan queue, so a wake-up never
// plans a queue concurrently with another pass).
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function wakeProcessor(ctx: ServiceContext): JobProcessor<'wake'> {
  return async (job) => {
    await ctx.jobs.requestPlan(job.data.queueId, job.data.why);
  };
}
