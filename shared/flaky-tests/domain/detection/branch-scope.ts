// Whether a run belongs to a monitor, and how to name where evidence came from in a reason.
import { branchPatternMatches, type BranchClass } from '../branch-class.js';
import type { BranchScope } from './config.js';

export function inScope(scope: BranchScope, branch: string, branchClass: BranchClass): boolean {
  if (scope.branchClasses.includes(branchClass)) return true;
  return scope.branchPatterns.some((p) => branchPatternMatches(p, branch));
}

/** `abc1234`: the short form people recognise in CI logs. */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** Where one piece of evidence happened: `on main`, `on PR #12`, `in the merge queue (…)`. */
export function describeLocation(branch: string, branchClass: BranchClass, prNumber: number | null): string {
  if (branchClass === 'pull_request') return prNumber !== null ? `on PR #${prNumber}` : `on pull request branch ${branch || '(unknown)'}`;
  if (branchClass === 'merge_queue') return `in the merge queue (${branch})`;
  return `on ${branch || '(unknown branch)'}`;
}

/** `on main`, `on main and release`, `on main, release and 3 more branches`. */
export function describeBranches(branches: Iterable<string>): string {
  const list = [...new Set(branches)].map((b) => b || '(unknown branch)').sort();
  if (list.length === 0) return 'on no branch';
  if (list.length === 1) return `on ${list[0]}`;
  if (list.length <= 3) return `on ${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
  return `on ${list.slice(0, 2).join(', ')} and ${list.length - 2} more branches`;
}
