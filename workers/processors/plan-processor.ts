// plan: one planning pass over one merge queue; then, on GitHub, the draft pull requests of the
// test branches the pass built or ended (a failure there is left to the periodic job).
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function planProcessor(ctx: ServiceContext): JobProcessor<'plan'> {
  return async (job) => {
    const summary = await ctx.services.engine.planQueue(job.data.queueId);
    ctx.logger.debug({ queueId: job.data.queueId, why: job.data.why, ...summary }, 'planning pass done');
    if (ctx.github && summary.applied > 0) {
      try {
        await ctx.github.testBranchPullRequests.reconcileQueue(job.data.queueId);
      } catch (err) {
        // The pass itself is done: running it again would not help, the periodic job will.
        ctx.logger.warn({ err, queueId: job.data.queueId }, 'draft pull requests of test branches not reconciled after the pass');
      }
    }
  };
}
