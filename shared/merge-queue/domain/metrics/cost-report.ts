// CI cost by cause: how many CI runs (and minutes) each merged pull request cost over a window,
// and which runs were wasted — cancelled before a verdict, or re-tested because their only
// failures were known-flaky tests or their failure was not their own — attributed to what caused
// them. Pure: the service loads the
// runs of the window and the re-test decisions recorded on the entries' timelines.
import type { EntryState, HistoryEntry, Reason, TestRun } from '../model.js';

export const WASTE_CAUSES = [
  'failure_ahead',
  'change_ahead',
  'flaky_retest',
  'not_its_fault_retest',
  'urgent_preemption',
  'push_to_target',
  'push_to_pull_request',
  'timeout',
  'restart_by_request',
  'cancel_by_request',
  'bisection',
  'other',
] as const;
export type WasteCause = (typeof WASTE_CAUSES)[number];

/** What cancelled a run, by the reason it was cancelled with. */
const CANCEL_CAUSES: Partial<Record<Reason, WasteCause>> = {
  prerequisite_merge_item_failed: 'failure_ahead',
  prerequisite_merge_item_cancelled: 'change_ahead',
  prerequisite_merge_item_manually_merged: 'change_ahead',
  skip_the_line_interrupted: 'urgent_preemption',
  manual_push_to_target_branch: 'push_to_target',
  pr_pushed_to: 'push_to_pull_request',
  test_run_timeout: 'timeout',
  tests_restarted_by_api_request: 'restart_by_request',
  tests_restarted_by_user: 'restart_by_request',
  user_requested: 'cancel_by_request',
  pr_closed: 'cancel_by_request',
  pr_base_branch_changed: 'cancel_by_request',
  pr_converted_to_draft: 'cancel_by_request',
  bisection_required: 'bisection',
};

/** Failed runs whose group was tested again instead of failing, by the re-test's reason. */
export const RETEST_CAUSES: Partial<Record<Reason, WasteCause>> = {
  test_run_retried_known_flaky: 'flaky_retest',
  test_run_retried_not_its_fault: 'not_its_fault_retest',
};

export function wasteCauseOf(reason: Reason | null): WasteCause {
  return (reason && CANCEL_CAUSES[reason]) || 'other';
}

const IN_FLIGHT: readonly EntryState[] = ['testing', 'tests_passed', 'pending_failure'];

/**
 * The cause a timeline transition wastes the run it leaves for, or null when it is a verdict (or
 * names no run). The transitions that end a group's testing without a verdict name the run they
 * leave (`testRunId`), so runs wasted in a window are counted from the timelines alone.
 */
export function wastedRunCause(h: HistoryEntry): WasteCause | null {
  if (!h.testRunId || !h.from || !IN_FLIGHT.includes(h.from)) return null;
  const retest = RETEST_CAUSES[h.reason];
  if (retest) return retest;
  return CANCEL_CAUSES[h.reason] ?? null;
}

/** Distinct runs wasted by transitions in the window, by cause (several entries of one batch count once). */
export function wastedRunsByCause(histories: readonly (readonly HistoryEntry[])[], window: { start: number; end: number }): Record<WasteCause, number> {
  const runs = new Map<WasteCause, Set<string>>();
  for (const history of histories) {
    for (const h of history) {
      const t = h.at.getTime();
      if (t <= window.start || t > window.end) continue;
      const cause = wastedRunCause(h);
      if (cause) runs.set(cause, (runs.get(cause) ?? new Set()).add(h.testRunId as string));
    }
  }
  return Object.fromEntries(WASTE_CAUSES.map((c) => [c, runs.get(c)?.size ?? 0])) as Record<WasteCause, number>;
}

export interface WastedRun {
  testRunId: string;
  testBranch: string;
  reason: Reason | null;
  /** In words: which pull request ahead failed, which flaky tests were re-tested, … */
  detail: string | null;
  ciMinutes: number;
}

export interface CauseCost {
  cause: WasteCause;
  runs: number;
  ciMinutes: number;
  /** The most recent wasted runs of this cause (at most EXAMPLES_PER_CAUSE). */
  examples: WastedRun[];
}

export interface CostReport {
  since: Date;
  until: Date;
  /** Runs started in the window, not counting those that reused an earlier run's result. */
  testRunsStarted: number;
  /** Runs that were not run: an earlier passing run was built from the same inputs (reuseTestedTrees). */
  testRunsReused: number;
  /** Minutes from each run's start (its test branch recorded) to its verdict, or to `until` while in progress. */
  ciMinutes: number;
  mergedPullRequests: number;
  /** Runs started in the window ÷ pull requests merged in it; null without merges. */
  testRunsPerMergedPr: number | null;
  ciMinutesPerMergedPr: number | null;
  wasted: { runs: number; ciMinutes: number; byCause: CauseCost[] };
}

export const EXAMPLES_PER_CAUSE = 5;

export interface CostReportInput {
  since: Date;
  until: Date;
  /** Runs started in [since, until]. */
  runs: readonly TestRun[];
  mergedPullRequests: number;
  /** Failed runs whose group was tested again instead of failing: the re-test's reason (a RETEST_CAUSES key) and detail. */
  retests: ReadonlyMap<string, { reason: Reason; detail: string }>;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** A run's CI minutes: from its start to its verdict, or to `until` while it is in progress. */
export function runMinutes(r: Pick<TestRun, 'createdAt' | 'concludedAt'>, until: Date): number {
  return Math.max(0, ((r.concludedAt ?? until).getTime() - r.createdAt.getTime()) / 60_000);
}

export function computeCostReport(input: CostReportInput): CostReport {
  const minutesOf = (r: TestRun) => runMinutes(r, input.until);
  const byCause = new Map<WasteCause, { runs: number; minutes: number; examples: WastedRun[] }>();
  let ciMinutes = 0;
  const ran = input.runs.filter((r) => !r.reusedFrom);
  const newestFirst = [...ran].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  for (const r of newestFirst) {
    const minutes = minutesOf(r);
    ciMinutes += minutes;
    const retest = r.status === 'failed' ? input.retests.get(r.id) : undefined;
    if (r.status !== 'cancelled' && retest === undefined) continue;
    const cause = retest !== undefined ? (RETEST_CAUSES[retest.reason] ?? 'other') : wasteCauseOf(r.conclusionReason);
    const slot = byCause.get(cause) ?? { runs: 0, minutes: 0, examples: [] };
    slot.runs += 1;
    slot.minutes += minutes;
    if (slot.examples.length < EXAMPLES_PER_CAUSE) {
      slot.examples.push({
        testRunId: r.id,
        testBranch: r.branch,
        reason: retest !== undefined ? retest.reason : r.conclusionReason,
        detail: retest !== undefined ? retest.detail : (r.conclusionDetail ?? null),
        ciMinutes: round(minutes),
      });
    }
    byCause.set(cause, slot);
  }
  const causes = WASTE_CAUSES.flatMap((cause) => {
    const s = byCause.get(cause);
    return s ? [{ cause, runs: s.runs, ciMinutes: round(s.minutes), examples: s.examples }] : [];
  });
  const merged = input.mergedPullRequests;
  return {
    since: input.since,
    until: input.until,
    testRunsStarted: ran.length,
    testRunsReused: input.runs.length - ran.length,
    ciMinutes: round(ciMinutes),
    mergedPullRequests: merged,
    testRunsPerMergedPr: merged > 0 ? round(ran.length / merged) : null,
    ciMinutesPerMergedPr: merged > 0 ? round(ciMinutes / merged) : null,
    wasted: {
      runs: causes.reduce((n, c) => n + c.runs, 0),
      ciMinutes: round(causes.reduce((n, c) => n + c.ciMinutes, 0)),
      byCause: causes,
    },
  };
}
