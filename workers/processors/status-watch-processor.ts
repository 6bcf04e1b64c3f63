// status-watch: the stall watchdog looks at a built run's required statuses (StatusWatchService).
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function statusWatchProcessor(ctx: ServiceContext): JobProcessor<'status-watch'> {
  return async (job) => {
    await ctx.services.statusWatch.check(job.data.testRunId);
  };
}
