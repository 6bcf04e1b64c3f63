// plan: one planning pass over one merge queue.
import type { Job } from 'bullmq';
import type { PlanJob } from '../../shared/jobs/job-types.js';
import type { ServiceContext } from '../../shared/runtime/context.js';

export function planProcessor(ctx: ServiceContext) {
  return async (job: Job<PlanJob>): Promise<void> => {
    const summary = await ctx.services.engine.planQueue(job.data.queueId);
    ctx.logger.debug({ queueId: job.data.queueId, why: job.data.why, ...summary }, 'planning pass done');
  };
}
