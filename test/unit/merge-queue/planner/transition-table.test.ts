// One case (at least) per row of the PR state machine (merge-queue-behaviour §1.18). Rows whose
// event happens outside the planner (submit, cancel, restart, delete) check how the planner
// reacts to the state the API leaves behind.
import { expect } from 'chai';
import type { Entry } from '../../../../shared/merge-queue/domain/model.js';
import {
  HEAD,
  at,
  cancels,
  entry,
  failed,
  held,
  kinds,
  merged,
  mergeOf,
  moves,
  passed,
  planOf,
  reasons,
  run,
  starts,
  type Scenario,
} from '../../../../shared/merge-queue/simulation/builders.js';

const notReady = (n: number, over: Partial<Entry> = {}): Entry =>
  entry(n, {
    state: 'not_ready',
    readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'in_progress', requiresImpactedTargets: false, hasImpactedTargets: false },
    ...over,
  });
const ready = (n: number, over: Partial<Entry> = {}): Entry => entry(n, { state: 'not_ready', ...over });

interface Row {
  row: string;
  scenario: Scenario;
  check: (r: ReturnType<typeof planOf>) => void;
}

const rows: Row[] = [
  {
    row: '1: a submitted entry waits in not_ready until it is ready',
    scenario: { entries: [notReady(1)] },
    check: (r) => expect(r.actions).to.deep.equal([]),
  },
  {
    row: '2: directMergeMode always, based on the tip, own statuses passing, queue empty → merged without a run',
    scenario: {
      queue: { directMergeMode: 'always' },
      entries: [ready(1)],
      directMerge: { e1: { basedOnTargetTip: true, requiredStatusesPassing: true } },
    },
    check: (r) => {
      expect(mergeOf(r.actions)).to.equal('1@direct');
      const m = r.actions.find((a) => a.kind === 'merge');
      expect(m && m.kind === 'merge' && m.reason).to.equal('merge_graph_direct_merge');
      expect(starts(r.actions)).to.deep.equal([]);
    },
  },
  {
    row: '3: readiness satisfied and queue running → pending (merge_item_now_ready), and testing starts',
    scenario: { entries: [ready(1)] },
    check: (r) => {
      expect(reasons(r.actions)).to.deep.equal({ e1: 'merge_item_now_ready' });
      expect(starts(r.actions)).to.deep.equal(['1|']);
    },
  },
  ...(['paused', 'draining', 'switching_modes'] as const).map((state): Row => ({
    row: `4: readiness satisfied but queue ${state} → stays not_ready`,
    scenario: { queue: { state, pendingMode: state === 'switching_modes' ? 'parallel' : null }, entries: [ready(1)] },
    check: (r) => expect(moves(r.actions)).to.not.have.property('e1'),
  })),
  {
    row: '5: a cancelled not_ready entry is left alone',
    scenario: { entries: [notReady(1, { state: 'cancelled', lastReason: 'user_requested' })] },
    check: (r) => expect(r.actions).to.deep.equal([]),
  },
  {
    row: '6: not ready past notReadyTimeoutHours → cancelled (not_ready_timeout); before that a wake-up is asked for',
    scenario: { queue: { notReadyTimeoutHours: 2 }, entries: [notReady(1), notReady(2, { stateChangedAt: at(60) })], now: at(120) },
    check: (r) => {
      expect(reasons(r.actions)).to.deep.equal({ e1: 'not_ready_timeout' });
      expect(moves(r.actions)).to.deep.equal({ e1: 'cancelled' });
      expect(r.wakeAt).to.deep.equal(at(180));
    },
  },
  {
    row: '7: pending with a free slot → a run starts on target head + everything ahead',
    scenario: { queue: { concurrency: 2 }, entries: [held(1, 'r1'), entry(2), entry(3)], runs: [run('r1', [1])] },
    check: (r) => expect(starts(r.actions)).to.deep.equal(['2|1']),
  },
  {
    row: '8: testing, run succeeded → tests_passed',
    scenario: { entries: [held(1, 'r1'), held(2, 'r2')], runs: [run('r1', [1]), passed(run('r2', [2], [1]))] },
    check: (r) => expect(moves(r.actions)).to.deep.equal({ e2: 'tests_passed' }),
  },
  {
    row: '9: tests_passed and everything ahead merged → merged, verified by its run',
    scenario: {
      entries: [merged(1, HEAD, 'm1'), held(2, 'r2', 'tests_passed')],
      runs: [passed(run('r2', [2], [1]))],
      head: 'm1',
    },
    check: (r) => {
      expect(mergeOf(r.actions)).to.equal('2@r2');
      const m = r.actions.find((a) => a.kind === 'merge');
      expect(m && m.kind === 'merge' && m.items[0]!.verifiedByTestRun).to.equal('r2');
      expect(m && m.kind === 'merge' && m.expectedTargetSha).to.equal('m1');
    },
  },
  {
    row: '9: tests_passed waits while a predecessor has not merged',
    scenario: { entries: [held(1, 'r1'), held(2, 'r2', 'tests_passed')], runs: [run('r1', [1]), passed(run('r2', [2], [1]))] },
    check: (r) => expect(mergeOf(r.actions)).to.equal(null),
  },
  {
    row: '9: tests_passed in a paused queue → no merge',
    scenario: { queue: { state: 'paused' }, entries: [held(1, 'r1', 'tests_passed')], runs: [passed(run('r1', [1]))] },
    check: (r) => expect(r.actions).to.deep.equal([]),
  },
  {
    row: '10: testing, a required status failed → pending_failure (waits for the group ahead)',
    scenario: { entries: [held(1, 'r1'), held(2, 'r2')], runs: [run('r1', [1]), failed(run('r2', [2], [1]))] },
    check: (r) => {
      expect(moves(r.actions)).to.deep.equal({ e2: 'pending_failure' });
      expect(reasons(r.actions)).to.deep.equal({ e2: 'test_run_failed' });
    },
  },
  {
    row: '11: testing past testingTimeoutMinutes → run cancelled, pending_failure then failed (test_run_timeout; with notItsFaultRetries 0, else tested again first)',
    scenario: {
      queue: { testingTimeoutMinutes: 30, notItsFaultRetries: 0 },
      entries: [held(1, 'r1')],
      runs: [run('r1', [1], [], { deadlineAt: at(30) })],
      now: at(31),
    },
    check: (r) => {
      expect(cancels(r.actions)).to.deep.equal({ r1: 'test_run_timeout' });
      expect(moves(r.actions)).to.deep.equal({ e1: 'failed' });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_timeout' });
    },
  },
  {
    row: '11: before the deadline nothing happens but a wake-up at the deadline',
    scenario: { queue: { testingTimeoutMinutes: 30 }, entries: [held(1, 'r1')], runs: [run('r1', [1], [], { deadlineAt: at(30) })], now: at(10) },
    check: (r) => {
      expect(r.actions).to.deep.equal([]);
      expect(r.wakeAt).to.deep.equal(at(30));
    },
  },
  {
    row: '12: pending_failure, a predecessor failed and left → restart without it (prerequisite_merge_item_failed)',
    scenario: {
      entries: [entry(1, { state: 'failed', lastReason: 'test_run_required_status_failed' }), held(2, 'r2', 'pending_failure')],
      runs: [failed(run('r2', [2], [1]))],
    },
    check: (r) => {
      expect(reasons(r.actions)).to.deep.equal({ e2: 'prerequisite_merge_item_failed' });
      expect(starts(r.actions)).to.deep.equal(['2|']);
      const t = r.actions.find((a) => a.kind === 'transition_entry');
      expect(t && t.kind === 'transition_entry' && t.restart).to.equal(true);
      expect(t && t.kind === 'transition_entry' && t.detail).to.equal('PR #1 ahead failed');
    },
  },
  {
    row: '13: pending_failure, all ahead passed, depth 0 → failed (test_run_required_status_failed)',
    scenario: {
      entries: [merged(1, HEAD, 'm1'), held(2, 'r2', 'pending_failure')],
      runs: [failed(run('r2', [2], [1]))],
      head: 'm1',
    },
    check: (r) => expect(reasons(r.actions)).to.deep.equal({ e2: 'test_run_required_status_failed' }),
  },
  {
    row: '13: pending_failure waits for pendingFailureDepth successors to conclude',
    scenario: {
      queue: { pendingFailureDepth: 1 },
      entries: [held(1, 'r1', 'pending_failure'), held(2, 'r2')],
      runs: [failed(run('r1', [1])), run('r2', [2], [1])],
    },
    check: (r) => expect(r.actions).to.deep.equal([]),
  },
  {
    row: '13: successor concluded (failed too), no optimistic merge → failed; the successor restarts without it',
    scenario: {
      queue: { pendingFailureDepth: 1 },
      entries: [held(1, 'r1', 'pending_failure'), held(2, 'r2', 'pending_failure')],
      runs: [failed(run('r1', [1])), failed(run('r2', [2], [1]))],
    },
    check: (r) => {
      expect(moves(r.actions)).to.deep.equal({ e1: 'failed', e2: 'pending' });
      expect(starts(r.actions)).to.deep.equal(['2|']);
    },
  },
  {
    row: '14: pending_failure, a passing successor containing it and canOptimisticallyMerge → merged with it',
    scenario: {
      queue: { pendingFailureDepth: 1, canOptimisticallyMerge: true },
      entries: [held(1, 'r1', 'pending_failure'), held(2, 'r2', 'tests_passed')],
      runs: [failed(run('r1', [1])), passed(run('r2', [2], [1]))],
    },
    check: (r) => {
      expect(mergeOf(r.actions)).to.equal('1,2@r2');
      expect(moves(r.actions)).to.deep.equal({});
    },
  },
  {
    row: '15: restartTestsOnPullRequest (entry back to pending by the API) → its run is cancelled, it re-tests in place, nothing else restarts',
    scenario: {
      entries: [entry(1, { state: 'pending', lastReason: 'tests_restarted_by_api_request', restartCount: 1 }), held(2, 'r2')],
      runs: [run('r1', [1]), run('r2', [2], [1])],
    },
    check: (r) => {
      expect(cancels(r.actions)).to.deep.equal({ r1: 'tests_restarted_by_api_request' });
      expect(starts(r.actions)).to.deep.equal(['1|']);
      expect(moves(r.actions)).to.deep.equal({});
    },
  },
  {
    row: '16: testing, a predecessor was evicted → pending (restart), run cancelled',
    scenario: {
      entries: [entry(1, { state: 'cancelled', lastReason: 'user_requested' }), held(2, 'r2')],
      runs: [run('r2', [2], [1])],
    },
    check: (r) => {
      expect(cancels(r.actions)).to.deep.equal({ r2: 'prerequisite_merge_item_cancelled' });
      expect(reasons(r.actions)).to.deep.equal({ e2: 'prerequisite_merge_item_cancelled' });
      expect(starts(r.actions)).to.deep.equal(['2|']);
    },
  },
  {
    row: '16: tests_passed, a predecessor failed → pending (restart)',
    scenario: {
      entries: [entry(1, { state: 'failed' }), held(2, 'r2', 'tests_passed')],
      runs: [passed(run('r2', [2], [1]))],
    },
    check: (r) => {
      expect(reasons(r.actions)).to.deep.equal({ e2: 'prerequisite_merge_item_failed' });
      expect(mergeOf(r.actions)).to.equal(null);
    },
  },
  {
    row: '17: an urgent entry is ready and no slot is free → the lowest-priority running group restarts behind it',
    scenario: {
      queue: { concurrency: 1 },
      entries: [held(1, 'r1'), entry(2, { priorityValue: 0 })],
      runs: [run('r1', [1])],
    },
    check: (r) => {
      expect(cancels(r.actions)).to.deep.equal({ r1: 'skip_the_line_interrupted' });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'skip_the_line_interrupted' });
      expect(starts(r.actions)).to.deep.equal(['2|']);
    },
  },
  {
    row: '18: the target branch moved outside the queue → every stale run restarts on the new head',
    scenario: {
      entries: [held(1, 'r1'), held(2, 'r2', 'tests_passed')],
      runs: [run('r1', [1]), passed(run('r2', [2], [1]))],
      head: 'pushed-by-hand',
    },
    check: (r) => {
      expect(cancels(r.actions)).to.deep.equal({ r1: 'manual_push_to_target_branch' });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'manual_push_to_target_branch', e2: 'manual_push_to_target_branch' });
      expect(mergeOf(r.actions)).to.equal(null);
      const s = r.actions.filter((a) => a.kind === 'start_run');
      expect(s.map((a) => a.kind === 'start_run' && a.targetSha)).to.deep.equal(['pushed-by-hand', 'pushed-by-hand']);
    },
  },
  {
    row: '19: cancelPullRequest on a testing entry → its run is cancelled (user_requested) and groups built on it restart',
    scenario: {
      entries: [entry(1, { state: 'cancelled', lastReason: 'user_requested', currentRunId: 'r1' }), held(2, 'r2')],
      runs: [run('r1', [1]), run('r2', [2], [1])],
    },
    check: (r) => {
      expect(cancels(r.actions)).to.deep.equal({ r1: 'user_requested', r2: 'prerequisite_merge_item_cancelled' });
      expect(reasons(r.actions)).to.deep.equal({ e2: 'prerequisite_merge_item_cancelled' });
    },
  },
  {
    row: '20: a push to the pull request cancels it (pr_pushed_to); its run stops with that reason',
    scenario: {
      entries: [entry(1, { state: 'cancelled', lastReason: 'pr_pushed_to', currentRunId: 'r1' })],
      runs: [run('r1', [1])],
    },
    check: (r) => expect(cancels(r.actions)).to.deep.equal({ r1: 'pr_pushed_to' }),
  },
  {
    row: '21: a failed batch whose hold resolved as its own failure → bisection (bisection_required, first half starts)',
    scenario: {
      queue: { batch: true },
      entries: [1, 2, 3, 4].map((n) => held(n, 'r1', 'pending_failure')),
      runs: [failed(run('r1', [1, 2, 3, 4]))],
    },
    check: (r) => {
      expect(new Set(Object.values(reasons(r.actions)))).to.deep.equal(new Set(['bisection_required']));
      expect(starts(r.actions)).to.deep.equal(['1,2|', '3,4|1,2']);
      const s = r.actions.find((a) => a.kind === 'start_run');
      expect(s && s.kind === 'start_run' && [s.runKind, s.bisectionOf]).to.deep.equal(['bisection', 'r1']);
    },
  },
  {
    row: '22: a merge attempt failed (the applier failed the entry) → groups built on it restart',
    scenario: {
      entries: [entry(1, { state: 'failed', lastReason: 'github_api_merge_pr_failed' }), held(2, 'r2', 'tests_passed')],
      runs: [passed(run('r2', [2], [1]))],
    },
    check: (r) => expect(reasons(r.actions)).to.deep.equal({ e2: 'prerequisite_merge_item_failed' }),
  },
  {
    row: '23: a resubmitted pull request is a new entry; the old failed one is ignored',
    scenario: { entries: [entry(1, { id: 'old', state: 'failed' }), ready(1, { id: 'new', seq: 2 })] },
    check: (r) => {
      expect(moves(r.actions)).to.deep.equal({ new: 'pending' });
      expect(kinds(r.actions)).to.deep.equal(['transition_entry', 'start_run']);
    },
  },
  {
    row: '24: a deleted (empty) queue plans nothing',
    scenario: { entries: [] },
    check: (r) => expect(r).to.deep.equal({ actions: [], wakeAt: null }),
  },
];

describe('planner: the PR state machine (merge-queue-behaviour §1.18)', () => {
  for (const { row, scenario, check } of rows) {
    it(`row ${row}`, () => check(planOf(scenario)));
  }
});
