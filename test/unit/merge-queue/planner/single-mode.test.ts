// Single mode, the happy path and the queue states: admission, predicted bases, concurrency,
// merging in order, paused / draining / switching_modes, branch cleanup, determinism.
import { expect } from 'chai';
import { plan } from '../../../../shared/merge-queue/domain/planner/plan.js';
import {
  HEAD,
  cancels,
  entry,
  failed,
  held,
  input,
  kinds,
  merged,
  mergeOf,
  moves,
  passed,
  planOf,
  queue,
  reasons,
  run,
  starts,
} from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running, states } from '../../../../shared/merge-queue/simulation/simulator.js';

describe('planner: single mode', () => {
  describe('admission', () => {
    it('admits a ready entry only while the queue runs (merge_item_now_ready)', () => {
      const e = entry(1, { state: 'not_ready' });
      expect(reasons(planOf({ entries: [e] }).actions)).to.deep.equal({ e1: 'merge_item_now_ready' });
    });

    it('does not admit an entry that is not mergeable, has another base, or lacks impacted targets in parallel mode', () => {
      const base = entry(1, { state: 'not_ready' });
      const cases = [
        { ...base, readiness: { ...base.readiness, gitHubMergeability: 'not_mergeable' as const } },
        { ...base, readiness: { ...base.readiness, doesBaseBranchMatch: false } },
        { ...base, readiness: { ...base.readiness, requiresImpactedTargets: true, hasImpactedTargets: false } },
      ];
      for (const e of cases) expect(planOf({ entries: [e] }).actions).to.deep.equal([]);
    });

    it('admits a force-enqueued entry without waiting for mergeability', () => {
      const e = entry(1, { state: 'not_ready', forceEnqueued: true });
      e.readiness = { ...e.readiness, gitHubMergeability: 'in_progress' };
      expect(moves(planOf({ entries: [e] }).actions)).to.deep.equal({ e1: 'pending' });
    });

    it('sends a pending entry that stopped being ready back to not_ready (merge_item_no_longer_ready)', () => {
      const e = entry(1);
      e.readiness = { ...e.readiness, gitHubMergeability: 'not_mergeable' };
      expect(reasons(planOf({ entries: [e] }).actions)).to.deep.equal({ e1: 'merge_item_no_longer_ready' });
    });

    it('keeps a pending entry that a live run was built on, even if it stopped being ready', () => {
      const e = entry(1, { state: 'pending' });
      e.readiness = { ...e.readiness, gitHubMergeability: 'not_mergeable' };
      const r = planOf({ entries: [e, held(2, 'r2')], runs: [run('r2', [2], [1])] });
      expect(moves(r.actions)).to.not.have.property('e1');
    });
  });

  describe('test runs', () => {
    it('starts up to `concurrency` groups, each on the head plus every entry ahead', () => {
      const r = planOf({ queue: { concurrency: 3 }, entries: [1, 2, 3, 4].map((n) => entry(n)) });
      expect(starts(r.actions)).to.deep.equal(['1|', '2|1', '3|1,2']);
      const s = r.actions.find((a) => a.kind === 'start_run');
      expect(s && s.kind === 'start_run' && { kind: s.runKind, sha: s.targetSha, statuses: s.requiredStatuses }).to.deep.equal({
        kind: 'main',
        sha: HEAD,
        statuses: ['ci'],
      });
    });

    it('counts runs already in progress against the slots', () => {
      const r = planOf({ queue: { concurrency: 2 }, entries: [held(1, 'r1'), entry(2), entry(3)], runs: [run('r1', [1])] });
      expect(starts(r.actions)).to.deep.equal(['2|1']);
    });

    it('includes passed and pending-failure entries ahead in the predicted base, never failed ones', () => {
      const r = planOf({
        queue: { pendingFailureDepth: 1, concurrency: 2 },
        entries: [held(1, 'r1'), held(2, 'r2', 'tests_passed'), held(3, 'r3', 'pending_failure'), entry(4, { state: 'failed' }), entry(5)],
        runs: [run('r1', [1]), passed(run('r2', [2], [1])), failed(run('r3', [3], [1, 2]))],
      });
      expect(starts(r.actions)).to.deep.equal(['5|1,2,3']);
    });

    it('a concurrency change takes effect on the next pass (no run is cancelled when it shrinks)', () => {
      const entries = [held(1, 'r1'), held(2, 'r2'), entry(3)];
      const runs = [run('r1', [1]), run('r2', [2], [1])];
      expect(planOf({ queue: { concurrency: 1 }, entries, runs }).actions).to.deep.equal([]);
      expect(starts(planOf({ queue: { concurrency: 3 }, entries, runs }).actions)).to.deep.equal(['3|1,2']);
    });

    it('records the run result on the entries: passed → tests_passed, failed → pending_failure', () => {
      const r = planOf({
        entries: [held(1, 'r1'), held(2, 'r2'), held(3, 'r3')],
        runs: [run('r1', [1]), passed(run('r2', [2], [1])), failed(run('r3', [3], [1, 2]))],
      });
      expect(moves(r.actions)).to.deep.equal({ e2: 'tests_passed', e3: 'pending_failure' });
    });
  });

  describe('merging', () => {
    it('merges the front group once it passed, recording verifiedByTestRun', () => {
      const r = planOf({ entries: [held(1, 'r1', 'tests_passed'), held(2, 'r2')], runs: [passed(run('r1', [1])), run('r2', [2], [1])] });
      expect(mergeOf(r.actions)).to.equal('1@r1');
    });

    it('merges consecutive passed groups together, proven by the last one', () => {
      const r = planOf({
        entries: [held(1, 'r1', 'tests_passed'), held(2, 'r2', 'tests_passed')],
        runs: [passed(run('r1', [1])), passed(run('r2', [2], [1]))],
      });
      expect(mergeOf(r.actions)).to.equal('1,2@r2');
      const m = r.actions.find((a) => a.kind === 'merge');
      expect(m && m.kind === 'merge' && m.items.map((i) => i.verifiedByTestRun)).to.deep.equal(['r1', 'r2']);
      expect(m && m.kind === 'merge' && m.verifyTree).to.equal(true);
    });

    it('a passed group behind a testing one waits without optimistic merging', () => {
      const r = planOf({ entries: [held(1, 'r1'), held(2, 'r2', 'tests_passed')], runs: [run('r1', [1]), passed(run('r2', [2], [1]))] });
      expect(mergeOf(r.actions)).to.equal(null);
    });

    it('with canOptimisticallyMerge a passing group merges every testing or passed group ahead it contains', () => {
      const r = planOf({
        queue: { canOptimisticallyMerge: true },
        entries: [held(1, 'r1'), held(2, 'r2', 'tests_passed'), held(3, 'r3', 'tests_passed')],
        runs: [run('r1', [1]), passed(run('r2', [2], [1])), passed(run('r3', [3], [1, 2]))],
      });
      expect(mergeOf(r.actions)).to.equal('1,2,3@r3');
      const m = r.actions.find((a) => a.kind === 'merge');
      expect(m && m.kind === 'merge' && m.items.map((i) => i.verifiedByTestRun)).to.deep.equal(['r3', 'r2', 'r3']);
    });

    it('starts no run in the pass that merges (the next pass builds on the new head)', () => {
      const r = planOf({ entries: [held(1, 'r1', 'tests_passed'), entry(2)], runs: [passed(run('r1', [1]))] });
      expect(kinds(r.actions)).to.deep.equal(['merge']);
    });

    it('keeps a run built on top of entries the queue merged since (no restart)', () => {
      const r = planOf({
        entries: [merged(1, HEAD, 'm1'), held(2, 'r2')],
        runs: [run('r2', [2], [1])],
        head: 'm1',
      });
      expect(r.actions).to.deep.equal([]);
    });

    it('end to end: three entries are tested predictively and merge in order', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 3 }), entries: [1, 2, 3].map((n) => entry(n)) });
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1|', '2|1', '3|1,2']);
      await finish(sim, [3], 'succeeded');
      await finish(sim, [2], 'succeeded');
      await sim.settle();
      expect(sim.mergeOrder).to.deep.equal([]);
      await finish(sim, [1], 'succeeded');
      await sim.settle();
      expect(sim.mergeOrder).to.deep.equal(['e1', 'e2', 'e3']);
      expect([...sim.entries.values()].map((e) => e.verifiedByTestRun)).to.deep.equal(['run1', 'run2', 'run3']);
    });
  });

  describe('queue states', () => {
    it('paused: no admission, no new run, no merge, but results are recorded and timeouts still apply', () => {
      const r = planOf({
        queue: { state: 'paused' },
        entries: [entry(1, { state: 'not_ready' }), held(2, 'r2'), held(3, 'r3'), entry(4)],
        runs: [passed(run('r2', [2])), run('r3', [3], [2])],
      });
      expect(moves(r.actions)).to.deep.equal({ e2: 'tests_passed' });
      expect(mergeOf(r.actions)).to.equal(null);
      expect(starts(r.actions)).to.deep.equal([]);
    });

    it('paused: a failure is not resolved until the queue runs again', () => {
      const r = planOf({ queue: { state: 'paused' }, entries: [held(1, 'r1')], runs: [failed(run('r1', [1]))] });
      expect(moves(r.actions)).to.deep.equal({ e1: 'pending_failure' });
    });

    it('draining: admitted entries are tested and merged, nothing new is admitted', () => {
      const r = planOf({ queue: { state: 'draining' }, entries: [entry(1), entry(2, { state: 'not_ready' })] });
      expect(starts(r.actions)).to.deep.equal(['1|']);
      expect(moves(r.actions)).to.deep.equal({});
      const m = planOf({ queue: { state: 'draining' }, entries: [held(1, 'r1', 'tests_passed')], runs: [passed(run('r1', [1]))] });
      expect(mergeOf(m.actions)).to.equal('1@r1');
    });

    it('switching_modes: work in flight finishes, nothing new starts, then the mode switches', () => {
      const q = { state: 'switching_modes' as const, pendingMode: 'parallel' as const };
      const busy = planOf({ queue: q, entries: [held(1, 'r1'), entry(2)], runs: [run('r1', [1])] });
      expect(busy.actions).to.deep.equal([]);
      const merging = planOf({ queue: q, entries: [held(1, 'r1', 'tests_passed'), entry(2)], runs: [passed(run('r1', [1]))] });
      expect(mergeOf(merging.actions)).to.equal('1@r1');
      const idle = planOf({ queue: q, entries: [merged(1, HEAD, 'm1'), entry(2)], runs: [], head: 'm1' });
      expect(idle.actions).to.deep.equal([{ kind: 'complete_mode_switch', queueId: 'q1', expectedQueueVersion: 1, mode: 'parallel' }]);
    });

    it('switching_modes: an entry a run was built on may still start (so the run can finish)', () => {
      const r = planOf({
        queue: { state: 'switching_modes', pendingMode: 'parallel' },
        entries: [entry(1, { lastReason: 'tests_restarted_by_api_request' }), held(2, 'r2', 'tests_passed'), entry(3)],
        runs: [passed(run('r2', [2], [1]))],
      });
      expect(starts(r.actions)).to.deep.equal(['1|']);
    });
  });

  describe('branches and determinism', () => {
    it('deletes the branch of a concluded run nothing depends on, keeps the others', () => {
      const r = planOf({
        entries: [entry(1, { state: 'merged', mergedSha: 'm1', mergedOntoSha: HEAD }), held(2, 'r2', 'tests_passed'), held(3, 'r3')],
        runs: [passed(run('r1', [1])), passed(run('r2', [2], [1])), run('r3', [3], [1, 2]), { ...run('r4', [4]), status: 'cancelled' }],
        head: 'm1',
      });
      const deleted = r.actions.filter((a) => a.kind === 'delete_branch').map((a) => (a.kind === 'delete_branch' ? a.runId : ''));
      expect(deleted).to.deep.equal(['r1', 'r4']);
    });

    it('plans the same actions for the same input, whatever order entries and runs come in', () => {
      const entries = [held(1, 'r1', 'tests_passed'), held(2, 'r2'), entry(3), entry(4, { priorityValue: 10 })];
      const runs = [passed(run('r1', [1])), run('r2', [2], [1])];
      const a = plan(input({ entries, runs, queue: { concurrency: 4 } }));
      const b = plan(input({ entries: [...entries].reverse(), runs: [...runs].reverse(), queue: { concurrency: 4 } }));
      expect(b).to.deep.equal(a);
    });

    it('never touches its input', () => {
      const scenario = input({ entries: [held(1, 'r1'), entry(2)], runs: [failed(run('r1', [1]))] });
      const copy = JSON.parse(JSON.stringify(scenario));
      plan(scenario);
      expect(JSON.parse(JSON.stringify(scenario))).to.deep.equal(copy);
    });

    it('cancels an in-progress run whose entries were all restarted or cancelled', () => {
      const r = planOf({ entries: [entry(1, { state: 'cancelled', lastReason: 'pr_closed' })], runs: [run('r1', [1])] });
      expect(cancels(r.actions)).to.deep.equal({ r1: 'pr_closed' });
    });

    it('a simulated queue reaches rest after every event (states agree with runs)', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 2 }), entries: [1, 2, 3].map((n) => entry(n)) });
      await sim.settle();
      await finish(sim, [1], 'failed');
      await sim.settle();
      expect(states(sim)).to.deep.include({ e1: 'failed', e2: 'testing', e3: 'testing' });
      expect(running(sim)).to.deep.equal(['2|', '3|2']);
    });
  });
});
