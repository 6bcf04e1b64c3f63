// What an upload says about itself, whichever way it arrived (native `meta` part or the CLI
// bundle's meta.json).
import type { RepoRef } from '../../platform/repo-ref.js';

export interface UploadMeta {
  repo: RepoRef;
  orgUrlSlug: string;
  /** Lower-case hex commit sha. */
  sha: string;
  branch: string;
  prNumber: number | null;
  /** Upload variant ("" when none), part of every test id. */
  variant: string;
  jobName: string | null;
  jobUrl: string | null;
  /** CI re-run attempt (GITHUB_RUN_ATTEMPT…), for the record. */
  ciAttempt: number | null;
  /** When the CI step started, used when a report's own timestamps are implausible. */
  startedAt: Date | null;
  /** GitLab `CI_MERGE_REQUEST_EVENT_TYPE` (merge trains are merge-queue runs). */
  gitlabMergeRequestEventType?: string | null;
}
