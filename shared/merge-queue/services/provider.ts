// What the merge queue needs from a forge, and nothing more. The engine and the use cases talk
// only to these types, so a forge (local bare repositories today, GitHub later) plugs in behind
// `ProviderRegistry.providerFor` without the engine changing. Shas are lowercase hex object ids.
import type { MergeMethod } from '../domain/model.js';
import type { RepoRef } from '../../platform/repo-ref.js';

export type PullRequestState = 'open' | 'closed';

/** A pull request as the forge sees it now. */
export interface PullRequestInfo {
  number: number;
  title: string;
  /** The forge login (local provider: metadata `author`, else the head commit's author name). */
  author: string;
  /** The branch it asks to be merged into; null when the forge does not say (the caller assumes the queue's branch). */
  baseBranch: string | null;
  headSha: string;
  /** Name of the source branch, when the forge knows one. */
  headBranch: string | null;
  /** A merged pull request is `closed` with `merged: true`, as on the hosted forges. */
  state: PullRequestState;
  /** True once the forge records it as merged (by this service or by anyone else). */
  merged: boolean;
  draft: boolean;
  /** Its head lives in another repository (a fork): CI on a test branch would run that code with this repository's secrets. */
  fromFork: boolean;
  /** Its labels' names (local provider: metadata `labels`); a schedule's exception labels are read from them. */
  labels: string[];
  /** A link for humans; local provider: `file://<repository directory>/pull/<N>` (not a real file). */
  url: string;
}

/** Whether a pull request's head merges without conflicts onto a commit (the target head). */
export type ProviderMergeability = 'mergeable' | 'not_mergeable';

/** One pull request to put on a test branch, in queue order. */
export interface TestBranchPullRequest {
  number: number;
  headSha: string;
  title: string;
}

export interface BuildTestBranchInput {
  /** Full branch name without `refs/heads/`, e.g. `trunk-merge/pr-12/<testRunId>`. It must not exist yet. */
  branch: string;
  /** The commit the predicted base starts from (the target head the run was planned on). */
  baseSha: string;
  /** Merged onto baseSha one after another; predicted-base pull requests first, then the tested group. */
  pullRequests: TestBranchPullRequest[];
}

export type BuildTestBranchResult =
  /** `tree` is what mergePullRequests' `expectedTree` must match when these pull requests merge. */
  | { ok: true; sha: string; tree: string }
  /**
   * The first pull request whose changes conflict with everything before it; nothing was written.
   * `conflictedFiles` may be empty when the forge does not say (or the histories are unrelated).
   */
  | { ok: false; reason: 'conflict'; conflictPrNumber: number; conflictedFiles: string[] };

/** One pull request to merge, in queue order. */
export interface MergePullRequest {
  number: number;
  /** The head that was tested; this exact commit is merged, whatever the pull request points at now. */
  headSha: string;
  title: string;
  author: string;
  headBranch?: string | null;
  /**
   * The branch the pull request asks to be merged into at the forge: for a stack member, the head
   * branch of the member below. A forge that merges into that branch (GitHub) has the pull request
   * retargeted onto the target branch first.
   */
  baseBranch?: string | null;
}

export interface MergePullRequestsInput {
  targetBranch: string;
  /** Compare-and-swap guard: the merge happens only if the target branch still points here. */
  expectedHeadSha: string;
  method: MergeMethod;
  pullRequests: MergePullRequest[];
  /**
   * The tree of the tested test branch. When given, the merge is written only if the target's
   * resulting tree is identical, so the queue never merges a combination it did not test.
   */
  expectedTree?: string;
}

export type MergePullRequestsResult =
  | {
      ok: true;
      /** The target branch head after the merge. */
      newHeadSha: string;
      /** Pull request number → the commit on the target that completes it (rebase: its last replayed commit). */
      mergedShas: Record<number, string>;
    }
  /** The target branch no longer points at expectedHeadSha; nothing was written. */
  | { ok: false; reason: 'target_moved'; actualHeadSha: string | null }
  /**
   * A pull request's changes conflict with the target plus the ones merged before it, or the
   * forge refused to merge it (`forgeMessage` quotes its answer: protection, permissions); that
   * pull request was not merged (pull requests before it may have been, as the forge shows).
   */
  | { ok: false; reason: 'conflict'; prNumber: number; conflictedFiles: string[]; forgeMessage?: string }
  /** The merged result differs from the tested tree; nothing was written. */
  | { ok: false; reason: 'tree_mismatch'; expectedTree: string; actualTree: string };

export type DeleteBranchResult = 'deleted' | 'not_found' | 'moved';

export interface GitProvider {
  /** Short name of the forge implementation, for logs (`local`, `github`). */
  readonly kind: string;

  repositoryExists(repo: RepoRef): Promise<boolean>;

  /** The commit a branch points at, or null when the branch does not exist. */
  branchHead(repo: RepoRef, branch: string): Promise<string | null>;

  /** Null when the pull request does not exist. */
  getPullRequest(repo: RepoRef, number: number): Promise<PullRequestInfo | null>;

  /** Several pull requests at once (null for those that do not exist): what a poller uses. */
  getPullRequests(repo: RepoRef, numbers: readonly number[]): Promise<Map<number, PullRequestInfo | null>>;

  /** Open pull requests (not merged, not closed), by number; lets a poller notice pushes and closes. */
  listOpenPullRequests(repo: RepoRef): Promise<PullRequestInfo[]>;

  /** Whether headSha merges onto baseSha without conflicts, by the forge's (git's) merge machinery. */
  mergeability(repo: RepoRef, shas: { baseSha: string; headSha: string }): Promise<ProviderMergeability>;

  /** True when `ancestorSha` is reachable from `descendantSha` (a commit is its own ancestor). Used by direct merge: "based on the tip". */
  isAncestor(repo: RepoRef, ancestorSha: string, descendantSha: string): Promise<boolean>;

  /**
   * The files a pull request changes: those that differ between its head and its merge base with
   * `baseSha` (the target head), renames as a deletion and an addition. Null when there are more
   * than `limit` (the caller treats it as touching everything).
   */
  changedPaths(repo: RepoRef, shas: { baseSha: string; headSha: string }, limit: number): Promise<string[] | null>;

  /** A file's text at a commit; null when the path is absent there or is not a file. */
  readFile(repo: RepoRef, sha: string, path: string): Promise<string | null>;

  /**
   * Required status contexts from the forge's branch protection of `branch`; null when the
   * forge has none configured (the local provider never has).
   */
  branchProtectionRequiredStatuses(repo: RepoRef, branch: string): Promise<string[] | null>;

  /** Builds the test branch: baseSha plus each pull request merged in order. Idempotent for a retried build of the same branch. */
  buildTestBranch(repo: RepoRef, input: BuildTestBranchInput): Promise<BuildTestBranchResult>;

  /** Merges pull requests one by one onto the target with `method`, then moves the target with compare-and-swap. */
  mergePullRequests(repo: RepoRef, input: MergePullRequestsInput): Promise<MergePullRequestsResult>;

  /** Deletes a branch; with expectedSha, only if it still points there. Deleting an absent branch is `not_found`, not an error. */
  deleteBranch(repo: RepoRef, branch: string, expectedSha?: string): Promise<DeleteBranchResult>;
}

/** Finds the provider that serves a repository. */
export interface ProviderRegistry {
  /** The provider that hosts `repo`, or null when no provider knows it (including malformed names). */
  providerFor(repo: RepoRef): Promise<GitProvider | null>;
}
