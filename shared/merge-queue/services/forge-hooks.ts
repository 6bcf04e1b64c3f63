// What a forge integration adds to the merge queue beyond its provider (GitHub: repository
// ownership and fork policy, slower polling while webhooks arrive, check suites, draft pull
// requests after a pass). A deployment without such a forge (local repositories) has none.
import type { RepoRef } from '../../platform/repo-ref.js';
import type { PollSchedule } from './sync-service.js';
import type { CheckSuiteSource } from './testing-details-service.js';

export interface ForgeHooks {
  /** Whether `orgId` may have queues on the repository; absent: every organisation may. */
  claimRepository?: (orgId: string, repo: RepoRef) => Promise<boolean>;
  /** Whether pull requests from forks may be queued in the repository; absent: no forge with forks. */
  forksAllowed?: (repo: RepoRef) => Promise<boolean>;
  /** When the poller syncs a queue; absent: every queue at every poll. */
  pollSchedule?: PollSchedule;
  /** Check suites on a commit; absent: none. */
  checkSuites?: CheckSuiteSource;
  /** A forge's follow-up once a planning pass changed a queue. */
  afterPassApplied?: (queueId: string) => Promise<void>;
}
