// github-ci-results (periodic): reads back from GitHub the CI results of test runs that have waited,
// because GitHub never redelivers a lost status or check_run delivery. Without GitHub: nothing.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function githubCiResultsProcessor(ctx: ServiceContext): JobProcessor<'github-ci-results'> {
  return async () => {
    const recorded = (await ctx.github?.ciResults.readBackWaitingRuns()) ?? 0;
    if (recorded > 0) ctx.logger.info({ recorded }, 'CI results read back from GitHub');
  };
}
