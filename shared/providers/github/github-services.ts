// The GitHub side of the service, built once by the composition root when GitHub is configured:
// CI results read from GitHub, and the webhook endpoint's handling (when a secret is set).
import type { GitHubConfig } from '../../config.js';
import type { Logger } from '../../logging.js';
import type { CommitStatusService } from '../../merge-queue/services/commit-status-service.js';
import type { SyncService } from '../../merge-queue/services/sync-service.js';
import type { MergeQueueRepositories } from '../../merge-queue/store/store.js';
import { GitHubCiResults } from './ci-results.js';
import type { GitHubProvider } from './github-provider.js';
import { GitHubWebhooks } from './github-webhooks.js';
import type { GitHubStore } from './store/github-store.js';
import { GitHubWebhookEvents } from './webhook-events.js';
import type { RepositoryOwners } from './store/repository-owners.js';
import { PullRequestFeedback } from './pull-request-feedback.js';
import type { RepoRef } from '../../repo-ref.js';
import type { OrgRepository } from '../../accounts/org-repository.js';
import { TestBranchPullRequests } from './test-branch-pull-requests.js';
import { GitHubPullRequestCommands } from './pull-request-commands.js';
import type { PullRequestService } from '../../merge-queue/services/pull-request-service.js';

export interface GitHubServices {
  ciResults: GitHubCiResults;
  /** statusCheckEnabled: the queue state as a commit status on pull request heads. */
  pullRequestFeedback: PullRequestFeedback;
  /** createPrsForTestingBranches: draft pull requests for test branches. */
  testBranchPullRequests: TestBranchPullRequests;
  /** Null without GITHUB_WEBHOOK_SECRET: POST /webhooks/github does not exist. */
  webhooks: GitHubWebhooks | null;
}

export interface GitHubServicesDeps {
  config: GitHubConfig;
  provider: GitHubProvider;
  githubStore: GitHubStore;
  store: Pick<MergeQueueRepositories, 'entries' | 'queues' | 'testRuns' | 'commitStatuses'> & { orgs: Pick<OrgRepository, 'findById'> };
  /** The base of dashboard links (PUBLIC_URL, or the service's own address). */
  baseUrl: string;
  sync: SyncService;
  commitStatuses: CommitStatusService;
  /** The use cases `/trunk merge` and `/trunk cancel` comments and the enqueueing label run. */
  pullRequests: Pick<PullRequestService, 'submit' | 'cancel'>;
  enqueueDelivery: (deliveryId: string) => Promise<void>;
  logger: Logger;
}

export function createGitHubServices(deps: GitHubServicesDeps): GitHubServices {
  const ciResults = new GitHubCiResults({ store: deps.store, checkRuns: deps.githubStore.checkRuns, commitStatuses: deps.commitStatuses, provider: deps.provider, logger: deps.logger });
  const secret = deps.config.webhookSecret;
  const webhooks = secret
    ? new GitHubWebhooks({
        secret,
        deliveries: deps.githubStore.deliveries,
        events: new GitHubWebhookEvents({
          store: deps.store,
          sync: deps.sync,
          ciResults,
          clients: deps.provider.githubClients,
          pollState: deps.githubStore.pollState,
          host: deps.config.host,
          commands: new GitHubPullRequestCommands({ owners: deps.githubStore.owners, queues: deps.store.queues, pullRequests: deps.pullRequests, provider: deps.provider, logger: deps.logger }),
          logger: deps.logger,
        }),
        enqueue: deps.enqueueDelivery,
        logger: deps.logger,
      })
    : null;
  const pullRequestFeedback = new PullRequestFeedback({ published: deps.githubStore.published, store: deps.store, provider: deps.provider, logger: deps.logger });
  const testBranchPullRequests = new TestBranchPullRequests({ pulls: deps.githubStore.testBranchPulls, store: deps.store, provider: deps.provider, baseUrl: deps.baseUrl, logger: deps.logger });
  return { ciResults, pullRequestFeedback, testBranchPullRequests, webhooks };
}

/** The queue service's ownership check: GitHub repositories are claimed, other forges' are not. */
export function claimGitHubRepository(provider: GitHubProvider, owners: RepositoryOwners): (orgId: string, repo: RepoRef) => Promise<boolean> {
  return async (orgId, repo) => !provider.serves(repo) || owners.claim(orgId, repo);
}
