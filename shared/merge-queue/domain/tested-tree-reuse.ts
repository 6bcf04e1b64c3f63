// Every tree tested once (issue 26 §3): a test branch is built by merging the pull requests'
// heads, in order, onto the target sha, so the same inputs build the same tree. A run whose
// inputs — its recipe — and required statuses are those of an earlier passing run of the queue
// (a pull request re-queued unchanged, a restart whose predicted base did not change) is not run
// again: it passes with that run's result, shown as such in the timeline and the cost report.
// docs/engine.md says when this is safe and when to turn it off (reuseTestedTrees).
import type { TestRun } from './model.js';

/** The recipe of a test branch: `<target sha>:<head>,<head>,…` in merge order. */
export function recipeOf(targetSha: string, heads: readonly string[]): string {
  return `${targetSha}:${heads.join(',')}`;
}

/** Whether `earlier` (a passing run with the same recipe) may stand for `run`. */
export function mayReuse(
  run: Pick<TestRun, 'id' | 'requiredStatuses'>,
  earlier: Pick<TestRun, 'id' | 'status' | 'tree' | 'sha' | 'requiredStatuses'>,
): boolean {
  if (earlier.id === run.id || earlier.status !== 'succeeded' || !earlier.tree || !earlier.sha) return false;
  const mine = [...run.requiredStatuses].sort();
  const theirs = [...earlier.requiredStatuses].sort();
  return mine.length === theirs.length && mine.every((c, i) => c === theirs[i]);
}

export function reuseDetail(earlier: Pick<TestRun, 'id' | 'tree'>): string {
  return `not run: test run ${earlier.id} already passed on the same base and pull request heads (tree ${earlier.tree!.slice(0, 12)}), with the same required statuses`;
}
