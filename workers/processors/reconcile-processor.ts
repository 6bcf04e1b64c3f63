// reconcile (periodic): plan every queue whose stored state may hold due work, so a lost job, a
// crash between a write and its enqueue, or a missed wake-up never leaves a queue stuck.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function reconcileProcessor(ctx: ServiceContext): JobProcessor<'reconcile'> {
  return async () => {
    const queueIds = await ctx.services.engine.queuesWithWork();
    for (const id of queueIds) await ctx.jobs.requestPlan(id, 'reconciler');
    if (queueIds.length > 0) ctx.logger.debug({ queues: queueIds.length }, 'reconciler requested planning passes');
  };
}
