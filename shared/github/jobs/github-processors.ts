// The GitHub integration's job processors. Without GitHub configured the periodic ones have
// nothing to do, and a queued delivery (GitHub configured earlier) cannot be handled.
import { notFound } from '../../platform/errors.js';
import type { ProcessorRegistry } from '../../platform/jobs/job-catalogue.js';
import type { Logger } from '../../platform/logging.js';
import type { GitHubModule } from '../github-module.js';
import type { GitHubJobs } from './github-jobs.js';

export function gitHubProcessors(
  github: Pick<GitHubModule, 'webhooks' | 'ciResults' | 'pullRequestFeedback' | 'testBranchPullRequests'> | null,
  logger: Logger,
): ProcessorRegistry<GitHubJobs> {
  return {
    // One recorded delivery (services/webhook-events.ts).
    'github-webhook': async (job) => {
      if (!github?.webhooks) throw notFound('github_not_configured', 'a GitHub delivery was queued but GitHub webhooks are not configured');
      await github.webhooks.process(job.data.deliveryId);
    },
    // GitHub never redelivers a lost status or check_run delivery: runs that have waited are read back.
    'github-ci-results': async () => {
      const recorded = (await github?.ciResults.readBackWaitingRuns()) ?? 0;
      if (recorded > 0) logger.info({ recorded }, 'CI results read back from GitHub');
    },
    // What changed in queued pull requests' queue state, as commit statuses and comments.
    'github-pr-feedback': async () => {
      const posted = (await github?.pullRequestFeedback.publish()) ?? 0;
      if (posted > 0) logger.debug({ posted }, 'queue statuses published on GitHub');
    },
    // Draft pull requests of test branches (createPrsForTestingBranches), closed once their runs ended.
    'github-test-branch-prs': async () => {
      const changed = (await github?.testBranchPullRequests.reconcileAll()) ?? 0;
      if (changed > 0) logger.debug({ changed }, 'draft pull requests of test branches opened or closed');
    },
  };
}
