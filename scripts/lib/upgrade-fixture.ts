// What scripts/make-upgrade-fixture.ts records beside the data directory it packs, and the upgrade
// test reads back: the release it came from and what that release answered before it stopped.
import type { RepoRef } from '../../shared/platform/repo-ref.js';

/** The API token the release was started with (a test fixture's, valid only in its data directory). */
export const UPGRADE_FIXTURE_TOKEN = 'upgrade-fixture-admin-token-0001';

export interface UpgradeManifest {
  /** The commit of the release that wrote the data directory. */
  release: string;
  ref: { repo: RepoRef; targetBranch: string };
  /** A read token the release created. */
  readToken: string;
  /** getQueue as the release answered it. */
  queue: Record<string, unknown>;
  /** getSubmittedPullRequest of #1 (merged), #2 (testing) and #3 (cancelled). */
  pullRequests: Record<number, Record<string, unknown>>;
  /** list-unhealthy-tests (FLAKY) as the release answered it. */
  tests: Record<string, unknown>;
}
