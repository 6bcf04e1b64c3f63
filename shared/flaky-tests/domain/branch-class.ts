// Branch classes of an upload (flaky-tests notes §1.3, "Branch classes computed from CI metadata"):
// detection rules differ between the stable branch, pull requests and merge-queue branches, and
// merge-queue branches are treated like protected branches because their PRs already passed once.

export type BranchClass = 'main' | 'pull_request' | 'merge_queue' | 'other';

/** Stable branches when a repository configures none (the CLI's own tests use these). */
export const DEFAULT_STABLE_BRANCHES: readonly string[] = ['main', 'master'];

/**
 * Substrings / prefixes that mark a merge-queue branch. The hosted CLI recognises `trunk-merge/`,
 * `gh-readonly-queue/` and Graphite's `gtmq_`; the monitor docs add `graphite-merge/`; Mergify
 * builds its queue on `mergify/merge-queue/…`.
 */
const MERGE_QUEUE_MARKERS: readonly string[] = ['trunk-merge/', 'gh-readonly-queue/', 'graphite-merge/', 'mergify/merge-queue/'];

export interface BranchClassInput {
  /** Branch or ref as CI reported it (`refs/heads/x`, `origin/x`, `refs/pull/1/merge`, …). */
  branch: string | null | undefined;
  /** PR / MR number when CI exposed one. */
  prNumber?: number | string | null;
  /** The repository's stable branches (names or branch patterns); defaults to main/master. */
  stableBranches?: readonly string[];
  /** Extra merge-queue branch patterns (branch-pattern syntax, see branchPatternMatches). */
  mergeQueuePatterns?: readonly string[];
  /** GitLab `CI_MERGE_REQUEST_EVENT_TYPE`; `merge_train` means a merge-train pipeline. */
  gitlabMergeRequestEventType?: string | null;
}

/** Strips the ref prefixes the CLI strips (`refs/heads/`, `refs/`, `origin/`), in that order. */
export function cleanBranchName(branch: string | null | undefined): string {
  let b = (branch ?? '').trim();
  if (b.startsWith('refs/heads/')) b = b.slice('refs/heads/'.length);
  else if (b.startsWith('refs/')) b = b.slice('refs/'.length);
  if (b.startsWith('origin/')) b = b.slice('origin/'.length);
  return b;
}

/** A PR number is usable when it is a positive integer (CI often reports "" or "false"). */
export function parsePrNumber(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Monitor branch-pattern syntax (§1.3): `*` is any run of characters including `/`, `?` one
 * character, `**` ≡ `*`, everything else literal; the whole branch name must match.
 */
export function branchPatternMatches(pattern: string, branch: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '*') {
      while (pattern.charAt(i + 1) === '*') i++;
      re += '.*';
    } else if (c === '?') {
      re += '.';
    } else {
      re += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
    }
  }
  return new RegExp(`${re}$`, 's').test(branch);
}

/** True for branch names the known merge queues create (after cleanBranchName). */
export function isMergeQueueBranch(branch: string, extraPatterns: readonly string[] = []): boolean {
  if (MERGE_QUEUE_MARKERS.some((m) => branch.includes(m))) return true;
  // Graphite: `gtmq_…` at the start or as a path segment.
  if (branch.startsWith('gtmq_') || branch.includes('/gtmq_')) return true;
  // GitLab merge trains test `refs/merge-requests/<iid>/train` (cleaned: `merge-requests/<iid>/train`).
  if (/^merge-requests\/\d+\/train$/.test(branch)) return true;
  return extraPatterns.some((p) => branchPatternMatches(p, branch));
}

/** Refs a pull/merge request is tested on: GitHub `pull/<n>/…`, GitLab `merge-requests/<n>/…`. */
function isPullRequestRef(branch: string): boolean {
  return branch.startsWith('pull/') || branch.startsWith('remotes/pull/') || /^merge-requests\/\d+\/(head|merge)$/.test(branch);
}

/**
 * Classifies an upload's branch. Order follows the CLI: merge queue first (a queue run may carry a
 * PR number), then pull request, then stable branch, else other.
 */
export function classifyBranch(input: BranchClassInput): BranchClass {
  const branch = cleanBranchName(input.branch);
  if (input.gitlabMergeRequestEventType?.trim().toLowerCase() === 'merge_train') return 'merge_queue';
  if (branch && isMergeQueueBranch(branch, input.mergeQueuePatterns)) return 'merge_queue';
  if (parsePrNumber(input.prNumber) !== null || isPullRequestRef(branch)) return 'pull_request';
  const stable = input.stableBranches && input.stableBranches.length > 0 ? input.stableBranches : DEFAULT_STABLE_BRANCHES;
  if (branch && stable.some((s) => (/[*?]/.test(s) ? branchPatternMatches(s, branch) : s === branch))) return 'main';
  return 'other';
}
