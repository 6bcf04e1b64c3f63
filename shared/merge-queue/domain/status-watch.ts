// The stall watchdog's rules. The most common silent stall of a merge queue is CI that never runs
// on its test branches (a workflow filter without `trunk-merge/**`, a disabled app): the run waits
// until its testing timeout and nobody is told why. A run whose required statuses are not all
// reported (not even as pending) within statusWaitMinutes is flagged, on its entries' timelines
// and in the queue's warnings, naming the missing contexts.
import type { StatusWatch, TestRun } from './model.js';

/** When the watchdog looks at a run built at `builtAt`. */
export function statusWatchDueAt(builtAt: Date, statusWaitMinutes: number): Date {
  return new Date(builtAt.getTime() + statusWaitMinutes * 60_000);
}

/** Required contexts with no report at all on the commit, in the order they are required. */
export function unreportedContexts(required: readonly string[], reported: Iterable<string>): string[] {
  const seen = new Set(reported);
  return required.filter((c) => !seen.has(c));
}

/** The watch after `context` was reported on the run's head (the same object when it was not missing). */
export function afterStatusReported(watch: StatusWatch, context: string): StatusWatch {
  if (!watch.missing.includes(context)) return watch;
  const without = (list: readonly string[]) => list.filter((c) => c !== context);
  return { ...watch, missing: without(watch.missing), neverReported: without(watch.neverReported) };
}

export const QUEUE_WARNING_CODES = [
  'required_status_not_reported',
  'required_status_never_reported',
  'failure_held_not_its_fault',
  'target_branch_broken',
  'lanes_config_invalid',
] as const;
export type QueueWarningCode = (typeof QUEUE_WARNING_CODES)[number];

export interface QueueWarning {
  code: QueueWarningCode;
  message: string;
  /** The contexts the warning is about. */
  contexts: string[];
  /** The test runs that wait for them. */
  testRunIds: string[];
  /** Since when (the earliest watchdog finding). */
  since: Date;
}

/**
 * The queue's warnings, from the runs still in progress: one per run waiting for unreported
 * statuses, and one for the queue when some context was never reported on any recent test branch
 * (CI is most likely not configured to run on them at all).
 */
export function statusWarnings(openRuns: readonly TestRun[]): QueueWarning[] {
  const flagged = openRuns.filter(
    (r): r is TestRun & { statusWatch: StatusWatch } => r.status === 'in_progress' && !!r.statusWatch && r.statusWatch.missing.length > 0,
  );
  const warnings: QueueWarning[] = [];
  const never = [...new Set(flagged.flatMap((r) => r.statusWatch.neverReported))];
  if (never.length > 0) {
    const runs = flagged.filter((r) => r.statusWatch.neverReported.length > 0);
    warnings.push({
      code: 'required_status_never_reported',
      message:
        `required status ${quoteList(never)} has never been reported on a test branch of this queue. ` +
        `CI must run on pushes to branches matching trunk-merge/** (for GitHub Actions: on: push: branches: ['trunk-merge/**']) ` +
        `and report these contexts, or the queue's required statuses must name the contexts CI reports.`,
      contexts: never,
      testRunIds: runs.map((r) => r.id),
      since: earliest(runs),
    });
  }
  for (const r of flagged) {
    warnings.push({
      code: 'required_status_not_reported',
      message: `test run ${r.id} (${r.branch}) had no report of required status ${quoteList(r.statusWatch.missing)} when the watchdog looked at ${r.statusWatch.firedAt.toISOString()}; it waits until CI reports or the testing timeout`,
      contexts: [...r.statusWatch.missing],
      testRunIds: [r.id],
      since: r.statusWatch.firedAt,
    });
  }
  return warnings;
}

function earliest(runs: readonly (TestRun & { statusWatch: StatusWatch })[]): Date {
  return new Date(Math.min(...runs.map((r) => r.statusWatch.firedAt.getTime())));
}

function quoteList(contexts: readonly string[]): string {
  return contexts.map((c) => `"${c}"`).join(', ');
}
