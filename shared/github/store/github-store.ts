// The GitHub integration's repositories, as its services see them (interfaces), and createGitHubStore,
// which builds the database's (indexes: shared/platform/database/ensure-indexes.ts).
import type { Database } from '../../platform/database/collection.js';
import { DbCheckRunRepository, type CheckRunRepository } from './check-run-repository.js';
import { DbPollStateRepository, type PollStateRepository } from './poll-state-repository.js';
import { DbPublishedFeedbackRepository, type PublishedFeedbackRepository } from './published-feedback-repository.js';
import { DbRepositoryOwners, type RepositoryOwners } from './repository-owners.js';
import { DbTestBranchPullRequestRepository, type TestBranchPullRequestRepository } from './test-branch-pull-request-repository.js';
import { DbGitHubDeliveryRepository, type GitHubDeliveryRepository } from './github-delivery-repository.js';

export interface GitHubStore {
  checkRuns: CheckRunRepository;
  deliveries: GitHubDeliveryRepository;
  owners: RepositoryOwners;
  pollState: PollStateRepository;
  published: PublishedFeedbackRepository;
  testBranchPulls: TestBranchPullRequestRepository;
}

export function createGitHubStore(db: Database): GitHubStore {
  return {
    checkRuns: new DbCheckRunRepository(db),
    deliveries: new DbGitHubDeliveryRepository(db),
    owners: new DbRepositoryOwners(db),
    pollState: new DbPollStateRepository(db),
    published: new DbPublishedFeedbackRepository(db),
    testBranchPulls: new DbTestBranchPullRequestRepository(db),
  };
}
