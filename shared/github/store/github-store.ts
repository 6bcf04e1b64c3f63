// The GitHub side's repositories over one database (indexes: shared/database/ensure-indexes.ts).
import type { Database } from '../../platform/database/collection.js';
import { CheckRunRepository } from './check-run-repository.js';
import { PollStateRepository } from './poll-state-repository.js';
import { PublishedFeedbackRepository } from './published-feedback-repository.js';
import { RepositoryOwners } from './repository-owners.js';
import { TestBranchPullRequestRepository } from './test-branch-pull-request-repository.js';
import { GitHubDeliveryRepository } from './github-delivery-repository.js';

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
    checkRuns: new CheckRunRepository(db),
    deliveries: new GitHubDeliveryRepository(db),
    owners: new RepositoryOwners(db),
    pollState: new PollStateRepository(db),
    published: new PublishedFeedbackRepository(db),
    testBranchPulls: new TestBranchPullRequestRepository(db),
  };
}
