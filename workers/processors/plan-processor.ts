// plan: one planning pass over one merge queue.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function planProcessor(ctx: ServiceContext): JobProcessor<'plan'> {
  return async (job) => {
    const summary = await ctx.services.engine.planQueue(job.data.queueId);
    ctx.logger.debug({ queueId: job.data.queueId, why: job.data.why, ...summary }, 'planning pass done');
  };
}
