import { expect } from 'chai';
import { computeCostReport, wasteCauseOf, wastedRunsByCause, WASTE_CAUSES } from '../../../shared/merge-queue/domain/metrics/cost-report.js';
import type { Reason, TestRun } from '../../../shared/merge-queue/domain/model.js';

const T0 = new Date('2026-03-01T00:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

function run(id: string, status: TestRun['status'], start: number, end: number | null, reason: Reason | null = null, detail?: string): TestRun {
  return {
    id,
    orgId: 'o',
    queueId: 'q',
    kind: 'main',
    entryIds: [`e-${id}`],
    baseEntryIds: [],
    targetSha: 'a'.repeat(40),
    branch: `trunk-merge/pr-1/${id}`,
    sha: 'b'.repeat(40),
    status,
    requiredStatuses: ['ci'],
    requiredStatusesSource: 'merge_instance',
    deadlineAt: null,
    createdAt: at(start),
    concludedAt: end === null ? null : at(end),
    conclusionReason: reason,
    ...(detail !== undefined ? { conclusionDetail: detail } : {}),
    branchDeleted: false,
    version: 1,
  };
}

describe('CI cost by cause', () => {
  it('runs and minutes per merged pull request; each wasted run under its cause, with its detail', () => {
    const report = computeCostReport({
      since: at(0),
      until: at(120),
      mergedPullRequests: 2,
      retests: new Map([['flaky', { reason: 'test_run_retried_known_flaky' as const, detail: 'only known-flaky tests failed: suite::a' }]]),
      runs: [
        run('ok1', 'succeeded', 0, 10, 'test_run_passed'),
        run('ok2', 'succeeded', 20, 30, 'test_run_passed'),
        run('ahead', 'cancelled', 0, 5, 'prerequisite_merge_item_failed', '#1 ahead failed'),
        run('urgent', 'cancelled', 40, 44, 'skip_the_line_interrupted', 'preempted by urgent #9'),
        run('push', 'cancelled', 50, 52, 'manual_push_to_target_branch', 'main moved'),
        run('prpush', 'cancelled', 53, 54, 'pr_pushed_to'),
        run('slow', 'cancelled', 60, 90, 'test_run_timeout', 'no result by its deadline'),
        run('again', 'cancelled', 91, 92, 'tests_restarted_by_api_request'),
        run('flaky', 'failed', 93, 103, 'test_run_failed'),
        run('real', 'failed', 104, 110, 'test_run_failed'),
        run('open', 'in_progress', 110, null),
      ],
    });
    expect(report.testRunsStarted).to.equal(11);
    expect(report.ciMinutes).to.equal(10 + 10 + 5 + 4 + 2 + 1 + 30 + 1 + 10 + 6 + 10);
    expect(report.testRunsPerMergedPr).to.equal(5.5);
    expect(report.ciMinutesPerMergedPr).to.equal(44.5);
    expect(report.wasted.byCause.map((c) => [c.cause, c.runs, c.ciMinutes])).to.deep.equal([
      ['failure_ahead', 1, 5],
      ['flaky_retest', 1, 10],
      ['urgent_preemption', 1, 4],
      ['push_to_target', 1, 2],
      ['push_to_pull_request', 1, 1],
      ['timeout', 1, 30],
      ['restart_by_request', 1, 1],
    ]);
    expect(report.wasted).to.include({ runs: 7, ciMinutes: 53 });
    const flaky = report.wasted.byCause.find((c) => c.cause === 'flaky_retest')!.examples[0]!;
    expect(flaky).to.deep.include({ testRunId: 'flaky', reason: 'test_run_retried_known_flaky', detail: 'only known-flaky tests failed: suite::a' });
    expect(report.wasted.byCause[0]!.examples[0]).to.deep.include({ testRunId: 'ahead', detail: '#1 ahead failed' });
  });

  it('without merges the ratios are null, not infinite', () => {
    const report = computeCostReport({ since: at(0), until: at(10), mergedPullRequests: 0, retests: new Map(), runs: [run('a', 'succeeded', 0, 5)] });
    expect([report.testRunsPerMergedPr, report.ciMinutesPerMergedPr]).to.deep.equal([null, null]);
  });

  it('a failed run tested again because its failure was not its own is wasted as not_its_fault_retest, with the verdict', () => {
    const detail = 'not its fault (infrastructure, rule no_results): …; testing again (re-test 1 of 1)';
    const report = computeCostReport({
      since: at(0),
      until: at(60),
      mergedPullRequests: 1,
      retests: new Map([['infra', { reason: 'test_run_retried_not_its_fault' as const, detail }]]),
      runs: [run('infra', 'failed', 0, 10, 'test_run_failed'), run('ok', 'succeeded', 10, 20, 'test_run_passed')],
    });
    expect(report.wasted.byCause.map((c) => [c.cause, c.runs, c.ciMinutes])).to.deep.equal([['not_its_fault_retest', 1, 10]]);
    expect(report.wasted.byCause[0]!.examples[0]).to.deep.include({ testRunId: 'infra', reason: 'test_run_retried_not_its_fault', detail });
  });

  it('every cause is reachable and an unknown reason is "other"', () => {
    expect(wasteCauseOf('test_run_lost')).to.equal('other');
    expect(wasteCauseOf(null)).to.equal('other');
    const reached = new Set([
      'flaky_retest',
      'not_its_fault_retest',
      'other',
      ...(
        [
          'prerequisite_merge_item_failed',
          'prerequisite_merge_item_cancelled',
          'skip_the_line_interrupted',
          'manual_push_to_target_branch',
          'pr_pushed_to',
          'test_run_timeout',
          'tests_restarted_by_api_request',
          'user_requested',
          'bisection_required',
        ] as Reason[]
      ).map(wasteCauseOf),
    ]);
    expect([...reached].sort()).to.deep.equal([...WASTE_CAUSES].sort());
  });

  it('counts wasted runs from timelines: once per run, only transitions that leave a run without a verdict', () => {
    const h = (
      minute: number,
      from: 'testing' | 'pending' | 'pending_failure',
      to: 'pending' | 'cancelled' | 'failed',
      reason: Reason,
      testRunId?: string,
    ) => ({ at: at(minute), from, to, reason, ...(testRunId ? { testRunId } : {}) });
    const counts = wastedRunsByCause(
      [
        [h(10, 'testing', 'pending', 'prerequisite_merge_item_failed', 'r1'), h(20, 'testing', 'failed', 'test_run_required_status_failed', 'r2')],
        [h(11, 'testing', 'pending', 'prerequisite_merge_item_failed', 'r1'), h(12, 'pending_failure', 'pending', 'test_run_retried_known_flaky', 'r3')],
        [h(15, 'pending_failure', 'pending', 'test_run_retried_not_its_fault', 'r6')],
        [
          h(13, 'pending', 'cancelled', 'user_requested'),
          h(14, 'testing', 'cancelled', 'pr_pushed_to', 'r4'),
          h(200, 'testing', 'pending', 'skip_the_line_interrupted', 'r5'),
        ],
      ],
      { start: at(0).getTime(), end: at(60).getTime() },
    );
    expect(Object.entries(counts).filter(([, n]) => n > 0)).to.deep.equal([
      ['failure_ahead', 1],
      ['flaky_retest', 1],
      ['not_its_fault_retest', 1],
      ['push_to_pull_request', 1],
    ]);
  });
});
