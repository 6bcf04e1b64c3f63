// githubQueueStatus (periodic): publishes what changed in queued pull requests' queue state as
// commit statuses on GitHub (statusCheckEnabled). Without GitHub: nothing.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function githubQueueStatusProcessor(ctx: ServiceContext): JobProcessor<'githubQueueStatus'> {
  return async () => {
    const posted = (await ctx.github?.queueStatuses.publish()) ?? 0;
    if (posted > 0) ctx.logger.debug({ posted }, 'queue statuses published on GitHub');
  };
}
