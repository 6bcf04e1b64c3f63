// github-test-branch-prs (periodic): draft pull requests for the test branches of GitHub queues
// with createPrsForTestingBranches, closed once their runs ended. Without GitHub: nothing.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function githubTestBranchPullRequestsProcessor(ctx: ServiceContext): JobProcessor<'github-test-branch-prs'> {
  return async () => {
    const changed = (await ctx.github?.testBranchPullRequests.reconcileAll()) ?? 0;
    if (changed > 0) ctx.logger.debug({ changed }, 'draft pull requests of test branches opened or closed');
  };
}
