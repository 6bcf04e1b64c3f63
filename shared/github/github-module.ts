// The GitHub integration, built by the composition root when GitHub is configured, in two steps
// because the merge queue and GitHub each use the other:
// - the forge (createGitHubForge) is what GitHub adds to the merge queue — repository ownership,
//   fork policy, poll pacing, check suites, the queue's statuses and comments on pull requests,
//   draft pull requests for test branches — over the merge queue's repositories only;
// - the intake (createGitHubIntake) is what GitHub tells the merge queue — webhooks, comment and
//   label commands, CI results — and drives its use cases.
import type { GitHubConfig } from '../providers/github/github-config.js';
import type { Logger } from '../platform/logging.js';
import type { Enqueue } from '../platform/jobs/job-catalogue.js';
import type { OrgRepository } from '../platform/accounts/org-repository.js';
import type { AuditTrail } from '../platform/audit/audit-log.js';
import type { CommitStatusService } from '../merge-queue/services/commit-status-service.js';
import type { ForgeHooks } from '../merge-queue/services/forge-hooks.js';
import type { PullRequestService } from '../merge-queue/services/pull-request-service.js';
import type { SyncService } from '../merge-queue/services/sync-service.js';
import type { VerdictService } from '../merge-queue/services/verdict-service.js';
import type { MergeQueueRepositories } from '../merge-queue/store/store.js';
import type { GitHubAdapter } from '../providers/github/github-adapter.js';
import { gitHubCheckSuites } from './services/check-suites.js';
import { GitHubCiResults } from './services/ci-results.js';
import { GitHubRepositoryService } from './services/github-repository-service.js';
import { GitHubWebhooks } from './services/github-webhooks.js';
import { GitHubPollSchedule } from './services/poll-schedule.js';
import { GitHubPullRequestCommands } from './services/pull-request-commands.js';
import { PullRequestFeedback } from './services/pull-request-feedback.js';
import { TestBranchPullRequests } from './services/test-branch-pull-requests.js';
import { GitHubWebhookEvents } from './services/webhook-events.js';
import type { GitHubJobs } from './jobs/github-jobs.js';
import type { GitHubStore } from './store/github-store.js';

export interface GitHubForge {
  adapter: GitHubAdapter;
  store: GitHubStore;
  /** getGitHubRepository / updateGitHubRepository: owners and fork policy. */
  repositories: GitHubRepositoryService;
  /** createPrsForTestingBranches: draft pull requests for test branches. */
  testBranchPullRequests: TestBranchPullRequests;
  /** What the merge queue is given. */
  hooks: ForgeHooks;
}

export interface GitHubForgeDeps {
  config: GitHubConfig;
  adapter: GitHubAdapter;
  store: GitHubStore;
  mergeQueueStore: Pick<MergeQueueRepositories, 'entries' | 'queues' | 'testRuns'>;
  orgs: Pick<OrgRepository, 'findById' | 'findBySlug'>;
  audit: AuditTrail;
  /** The base of dashboard links (PUBLIC_URL, or the service's own address). */
  baseUrl: string;
  /** PROVIDER_POLL_SECONDS: the poll of repositories whose webhooks do not arrive. */
  providerPollSeconds: number;
  logger: Logger;
}

export function createGitHubForge(deps: GitHubForgeDeps): GitHubForge {
  const { adapter, store, logger } = deps;
  const { api } = adapter;
  const repositories = new GitHubRepositoryService({
    owners: store.owners,
    orgs: deps.orgs,
    queues: deps.mergeQueueStore.queues,
    audit: deps.audit,
    serves: (repo) => api.serves(repo),
  });
  const testBranchPullRequests = new TestBranchPullRequests({
    pulls: store.testBranchPulls,
    store: deps.mergeQueueStore,
    orgs: deps.orgs,
    api,
    baseUrl: deps.baseUrl,
    logger,
  });
  return {
    adapter,
    store,
    repositories,
    testBranchPullRequests,
    hooks: {
      // GitHub repositories are claimed by the first organisation that queues on them; other forges' are not.
      claimRepository: async (orgId, repo) => !api.serves(repo) || store.owners.claim(orgId, repo),
      forksAllowed: (repo) => repositories.forksAllowed(repo),
      pollSchedule: new GitHubPollSchedule({
        state: store.pollState,
        api,
        intervals: { normalSeconds: deps.providerPollSeconds, webhookSeconds: deps.config.webhookPollSeconds, quietSeconds: deps.config.webhookQuietSeconds },
      }),
      checkSuites: gitHubCheckSuites({ checkRuns: store.checkRuns, api }),
      // The draft pull requests of the test branches a pass built or ended, at once (the periodic job catches up).
      afterPassApplied: async (queueId) => void (await testBranchPullRequests.reconcileQueue(queueId)),
    },
  };
}

export interface GitHubIntake {
  ciResults: GitHubCiResults;
  /** statusCheckEnabled, commentsEnabled: what a queued pull request shows on GitHub (with the verdict on a failure). */
  pullRequestFeedback: PullRequestFeedback;
  /** Null without GITHUB_WEBHOOK_SECRET: POST /webhooks/github does not exist. */
  webhooks: GitHubWebhooks | null;
}

export interface GitHubIntakeDeps {
  config: GitHubConfig;
  mergeQueueStore: Pick<MergeQueueRepositories, 'entries' | 'queues' | 'testRuns' | 'commitStatuses'>;
  /** The merge queue's use cases that GitHub's events drive. */
  mergeQueue: {
    sync: Pick<SyncService, 'syncQueue'>;
    commitStatuses: CommitStatusService;
    /** `/trunk merge` and `/trunk cancel` comments and the enqueueing label. */
    pullRequests: Pick<PullRequestService, 'submit' | 'cancel'>;
    verdicts: Pick<VerdictService, 'of'>;
  };
  enqueue: Enqueue<GitHubJobs>;
  logger: Logger;
}

export function createGitHubIntake(forge: GitHubForge, deps: GitHubIntakeDeps): GitHubIntake {
  const { adapter, store } = forge;
  const { logger } = deps;
  const ciResults = new GitHubCiResults({
    store: deps.mergeQueueStore,
    checkRuns: store.checkRuns,
    commitStatuses: deps.mergeQueue.commitStatuses,
    api: adapter.api,
    logger,
  });
  const pullRequestFeedback = new PullRequestFeedback({
    published: store.published,
    store: deps.mergeQueueStore,
    verdicts: deps.mergeQueue.verdicts,
    api: adapter.api,
    logger,
  });
  const secret = deps.config.webhookSecret;
  const webhooks = secret
    ? new GitHubWebhooks({
        secret,
        deliveries: store.deliveries,
        events: new GitHubWebhookEvents({
          store: deps.mergeQueueStore,
          sync: deps.mergeQueue.sync,
          ciResults,
          clients: adapter.api.clients,
          pollState: store.pollState,
          host: deps.config.host,
          commands: new GitHubPullRequestCommands({
            owners: store.owners,
            queues: deps.mergeQueueStore.queues,
            pullRequests: deps.mergeQueue.pullRequests,
            provider: adapter.provider,
            api: adapter.api,
            logger,
          }),
          logger,
        }),
        enqueue: (deliveryId) => deps.enqueue('github-webhook', { deliveryId }),
        logger,
      })
    : null;
  return { ciResults, pullRequestFeedback, webhooks };
}

/** The GitHub integration once both steps are built. */
export type GitHubModule = GitHubForge & GitHubIntake;
