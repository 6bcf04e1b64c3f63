// github-pr-feedback (periodic): publishes what changed in queued pull requests' queue state as
// commit statuses on GitHub (statusCheckEnabled). Without GitHub: nothing.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function githubPullRequestFeedbackProcessor(ctx: ServiceContext): JobProcessor<'github-pr-feedback'> {
  return async () => {
    const posted = (await ctx.github?.pullRequestFeedback.publish()) ?? 0;
    if (posted > 0) ctx.logger.debug({ posted }, 'queue statuses published on GitHub');
  };
}
