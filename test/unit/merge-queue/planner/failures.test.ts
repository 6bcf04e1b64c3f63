// Failures, flakes and restarts (issue 4): pending failure, depth, optimistic rescue, timeouts,
// build failures (merge conflict, no required statuses), evictions restarting what was built on
// the evicted entry.
import { expect } from 'chai';
import {
  at,
  cancels,
  entry,
  failed,
  HEAD,
  held,
  input,
  moves,
  passed,
  planOf,
  queue,
  reasons,
  run,
  starts,
  T0,
} from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running, states } from '../../../../shared/merge-queue/simulation/simulator.js';
import { plan } from '../../../../shared/merge-queue/domain/planner/index.js';
import type { FailedTestEvidence } from '../../../../shared/merge-queue/domain/flaky-retest.js';

describe('planner: failures, flakes and restarts', () => {
  describe('pending failure', () => {
    it('waits while any group ahead has not concluded', () => {
      const r = planOf({ entries: [held(1, 'r1'), held(2, 'r2', 'pending_failure')], runs: [run('r1', [1]), failed(run('r2', [2], [1]))] });
      expect(moves(r.actions)).to.deep.equal({});
    });

    it('waits while a group ahead is itself in pending failure', () => {
      const r = planOf({
        queue: { pendingFailureDepth: 2 },
        entries: [held(1, 'r1', 'pending_failure'), held(2, 'r2', 'pending_failure'), held(3, 'r3')],
        runs: [failed(run('r1', [1])), failed(run('r2', [2], [1])), run('r3', [3], [1, 2])],
      });
      expect(moves(r.actions)).to.deep.equal({});
    });

    it('fails with test_run_timeout when the run timed out and notItsFaultRetries is 0', () => {
      const r = planOf({
        queue: { notItsFaultRetries: 0 },
        entries: [held(1, 'r1', 'pending_failure')],
        runs: [{ ...run('r1', [1]), status: 'cancelled', conclusionReason: 'test_run_timeout' }],
      });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_timeout' });
    });

    it('a timed-out run is the infrastructure’s fault: tested again notItsFaultRetries times, then held with the reason', () => {
      const timedOut = [{ ...run('r1', [1]), status: 'cancelled' as const, conclusionReason: 'test_run_timeout' as const }];
      const first = planOf({ entries: [held(1, 'r1', 'pending_failure')], runs: timedOut });
      expect(reasons(first.actions)).to.deep.include({ e1: 'test_run_retried_not_its_fault' });
      const detail = first.actions.find((a) => a.kind === 'transition_entry' && a.reason === 'test_run_retried_not_its_fault');
      expect(detail && detail.kind === 'transition_entry' && detail.detail).to.equal(
        'not its fault (infrastructure, rule timeout): the test run did not finish within the testing timeout; testing again (re-test 1 of 1)',
      );
      const retried = held(1, 'r1', 'pending_failure');
      retried.history.push({ at: T0, from: 'pending_failure', to: 'pending', reason: 'test_run_retried_not_its_fault', testRunId: 'r0' });
      const second = planOf({ entries: [retried], runs: timedOut });
      expect(reasons(second.actions)).to.deep.equal({ e1: 'test_run_held_not_its_fault' });
      const hold = second.actions.find((a) => a.kind === 'transition_entry');
      expect(hold && hold.kind === 'transition_entry' && [hold.to, hold.detail]).to.deep.equal([
        'pending_failure',
        'not its fault (infrastructure, rule timeout): the test run did not finish within the testing timeout; after 1 re-test it waits instead of leaving the queue: fix the target branch (its run restarts when it moves), or restart or cancel it',
      ]);
      // Held: the next pass leaves it as it is.
      const again = planOf({ entries: [{ ...retried, lastReason: 'test_run_held_not_its_fault' }], runs: timedOut });
      expect(moves(again.actions)).to.deep.equal({});
    });

    it('a failure whose tests fail on the target commit too is the target branch’s: tested again, not ejected', () => {
      const evidence = {
        expected: true,
        uploads: 1,
        runs: 10,
        failed: 1,
        failedTests: [{ id: 't1', name: 'checkout', knownFlaky: false, quarantined: false, onTarget: 'failed' as const, onHead: null }],
      };
      const r = planOf({ entries: [held(1, 'r1', 'pending_failure')], runs: [failed(run('r1', [1]))], testResults: { r1: evidence } });
      expect(reasons(r.actions)).to.deep.include({ e1: 'test_run_retried_not_its_fault' });
      // The same failure, with the test passing on the target: its own; it fails as before.
      const own = { ...evidence, failedTests: [{ ...evidence.failedTests[0]!, onTarget: 'passed' as const }] };
      const mine = planOf({ entries: [held(1, 'r1', 'pending_failure')], runs: [failed(run('r1', [1]))], testResults: { r1: own } });
      expect(reasons(mine.actions)).to.deep.equal({ e1: 'test_run_required_status_failed' });
    });

    describe('while the target branch is broken', () => {
      const broken = { sha: HEAD, tests: [{ id: 't1', name: 'checkout' }], since: T0 };
      const failedTest = (id: string, name: string): FailedTestEvidence => ({ id, name, knownFlaky: false, quarantined: false, onTarget: null, onHead: null });
      const evidence = (...tests: FailedTestEvidence[]) => ({ expected: true, uploads: 1, runs: 10, failed: tests.length, failedTests: tests });

      it('a failure of only the tests failing on the branch is held at once, even with notItsFaultRetries 0; a batch is held, not bisected', () => {
        const one = planOf({
          queue: { notItsFaultRetries: 0, targetBroken: broken },
          entries: [held(1, 'r1', 'pending_failure')],
          runs: [failed(run('r1', [1]))],
          testResults: { r1: evidence(failedTest('t1', 'checkout')) },
        });
        expect(reasons(one.actions)).to.deep.equal({ e1: 'test_run_held_target_broken' });
        const hold = one.actions.find((a) => a.kind === 'transition_entry');
        expect(hold && hold.kind === 'transition_entry' && [hold.to, hold.detail]).to.deep.equal([
          'pending_failure',
          'only tests that fail on the broken main failed (failing at head0: checkout); it waits in the queue until main is green again, then is tested again',
        ]);
        const batch = planOf({
          queue: { targetBroken: broken },
          entries: [held(1, 'r1', 'pending_failure'), held(2, 'r1', 'pending_failure')],
          runs: [failed(run('r1', [1, 2]))],
          testResults: { r1: evidence(failedTest('t1', 'checkout')) },
        });
        expect(reasons(batch.actions)).to.deep.equal({ e1: 'test_run_held_target_broken', e2: 'test_run_held_target_broken' });
      });

      it('holds before the flaky re-test: a failure on the branch has made its tests known flaky by now', () => {
        const r = planOf({
          queue: { targetBroken: broken },
          entries: [held(1, 'r1', 'pending_failure')],
          runs: [failed(run('r1', [1]))],
          testResults: { r1: evidence({ ...failedTest('t1', 'checkout'), knownFlaky: true }, { ...failedTest('t9', 'flaky_one'), knownFlaky: true }) },
        });
        expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_held_target_broken' });
      });

      it('a failure of another test as well is judged as usual: the pull request’s own, ejected', () => {
        const r = planOf({
          queue: { notItsFaultRetries: 0, targetBroken: broken },
          entries: [held(1, 'r1', 'pending_failure')],
          runs: [failed(run('r1', [1]))],
          testResults: { r1: evidence(failedTest('t1', 'checkout'), failedTest('t2', 'cart')) },
        });
        expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_required_status_failed' });
      });

      it('once the branch is green, a held pull request is tested again; while it is broken, it stays', () => {
        const waiting = { ...held(1, 'r1', 'pending_failure'), lastReason: 'test_run_held_target_broken' as const };
        const still = planOf({
          queue: { targetBroken: broken },
          entries: [waiting],
          runs: [failed(run('r1', [1]))],
          testResults: { r1: evidence(failedTest('t1', 'checkout')) },
        });
        expect(moves(still.actions)).to.deep.equal({});
        const green = planOf({
          queue: { targetBroken: null },
          entries: [waiting],
          runs: [failed(run('r1', [1]))],
          testResults: { r1: evidence(failedTest('t1', 'checkout')) },
        });
        expect(reasons(green.actions)).to.deep.include({ e1: 'test_run_retried_not_its_fault' });
        const retest = green.actions.find((a) => a.kind === 'transition_entry' && a.reason === 'test_run_retried_not_its_fault');
        expect(retest && retest.kind === 'transition_entry' && retest.detail).to.equal('main is green again at head0: testing again');
      });
    });

    it('does not wait for successors that cannot start (switching modes)', () => {
      const r = planOf({
        queue: { pendingFailureDepth: 1, state: 'switching_modes', pendingMode: 'parallel' },
        entries: [held(1, 'r1', 'pending_failure'), entry(2)],
        runs: [failed(run('r1', [1]))],
      });
      expect(moves(r.actions)).to.deep.equal({ e1: 'failed' });
    });

    it('with depth 1 and no optimistic merge, a passing successor only delays the failure', () => {
      const r = planOf({
        queue: { pendingFailureDepth: 1 },
        entries: [held(1, 'r1', 'pending_failure'), held(2, 'r2', 'tests_passed')],
        runs: [failed(run('r1', [1])), passed(run('r2', [2], [1]))],
      });
      expect(moves(r.actions)).to.deep.equal({ e1: 'failed', e2: 'pending' });
      expect(reasons(r.actions).e2).to.equal('prerequisite_merge_item_failed');
    });

    it('the worked example of §1.18: A, B+a, C+ba testing; A fails → A failed, B and C re-test as B on head, C on head+B', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 3 }), entries: [1, 2, 3].map((n) => entry(n)) });
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1|', '2|1', '3|1,2']);
      await finish(sim, [1], 'failed');
      await sim.settle();
      expect(states(sim)).to.deep.equal({ e1: 'failed', e2: 'testing', e3: 'testing' });
      expect(running(sim)).to.deep.equal(['2|', '3|2']);
      expect([...sim.entries.values()].map((e) => e.restartCount)).to.deep.equal([0, 1, 1]);
    });

    it('the worked example, other order: C fails first and waits for A and B', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 3 }), entries: [1, 2, 3].map((n) => entry(n)), bad: new Set(['e3']) });
      await sim.settle();
      await finish(sim, [3], 'failed');
      await sim.settle();
      expect(states(sim).e3).to.equal('pending_failure');
      await finish(sim, [1], 'succeeded');
      await sim.settle();
      expect(states(sim).e3).to.equal('pending_failure');
      await finish(sim, [2], 'succeeded');
      await sim.settle();
      expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'failed' });
    });

    it('optimistic merge rescues a flaky failure with pendingFailureDepth 1', async () => {
      const sim = new Simulator({
        queue: queue({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true }),
        entries: [1, 2, 3].map((n) => entry(n)),
      });
      await sim.settle();
      await finish(sim, [1], 'failed'); // a flake: #1 is fine
      await sim.settle();
      expect(states(sim)).to.deep.include({ e1: 'pending_failure', e2: 'testing' });
      await finish(sim, [2], 'succeeded');
      await sim.settle();
      expect(states(sim)).to.deep.include({ e1: 'merged', e2: 'merged' });
      expect(sim.merges[0]).to.deep.equal({ entryIds: ['e1', 'e2'], proofRunId: 'run2' });
      expect(sim.entries.get('e1')!.verifiedByTestRun).to.equal('run2');
    });

    it('without optimistic merge the same flake fails the entry once its successor concluded', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 2, pendingFailureDepth: 1 }), entries: [1, 2].map((n) => entry(n)) });
      await sim.settle();
      await finish(sim, [1], 'failed');
      await finish(sim, [2], 'succeeded');
      await sim.settle();
      expect(states(sim)).to.deep.equal({ e1: 'failed', e2: 'testing' });
      expect(running(sim)).to.deep.equal(['2|']);
    });
  });

  describe('timeouts', () => {
    it('cancels a run past its deadline and sends its group down the failure path', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 2, testingTimeoutMinutes: 30, notItsFaultRetries: 0 }), entries: [1, 2].map((n) => entry(n)) });
      await sim.settle();
      expect(sim.lastWake).to.deep.equal(at(30));
      sim.now = at(30).getTime();
      await sim.settle();
      const r1 = sim.runs.get('run1')!;
      expect([r1.status, r1.conclusionReason]).to.deep.equal(['cancelled', 'test_run_timeout']);
      expect(states(sim)).to.deep.equal({ e1: 'failed', e2: 'testing' });
      expect(sim.entries.get('e1')!.lastReason).to.equal('test_run_timeout');
      expect(running(sim)).to.deep.equal(['2|']);
    });

    it('0 disables the timeout', () => {
      const r = planOf({ queue: { testingTimeoutMinutes: 0 }, entries: [entry(1)] });
      const s = r.actions.find((a) => a.kind === 'start_run');
      expect(s && s.kind === 'start_run' && s.timeoutMinutes).to.equal(0);
      expect(r.wakeAt).to.equal(null);
    });
  });

  describe('build failures', () => {
    it('a merge conflict fails the culprit at once (start_test_run_merge_conflict) and restarts the rest without it', () => {
      const r = planOf({
        entries: [held(1, 'r1'), held(2, 'r2'), held(3, 'r3')],
        runs: [
          run('r1', [1]),
          { ...run('r2', [2], [1]), status: 'failed', conclusionReason: 'start_test_run_merge_conflict', culpritEntryIds: ['e2'] },
          run('r3', [3], [1, 2]),
        ],
      });
      expect(reasons(r.actions)).to.deep.equal({ e2: 'start_test_run_merge_conflict', e3: 'prerequisite_merge_item_failed' });
      expect(cancels(r.actions)).to.deep.equal({ r3: 'prerequisite_merge_item_failed' });
      expect(starts(r.actions)).to.deep.equal(['3|1']);
    });

    it('a conflicting batch member fails alone; its batch-mates are tested again without it', () => {
      const r = planOf({
        queue: { batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 0 },
        entries: [1, 2, 3].map((n) => held(n, 'r1')),
        runs: [{ ...run('r1', [1, 2, 3]), status: 'failed', conclusionReason: 'start_test_run_merge_conflict', culpritEntryIds: ['e2'] }],
      });
      expect(moves(r.actions)).to.deep.equal({ e1: 'pending', e2: 'failed', e3: 'pending' });
      expect(starts(r.actions)).to.deep.equal(['1,3|']);
    });

    it('end to end: a conflict found while building fails that entry only', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 3 }), entries: [1, 2, 3].map((n) => entry(n)), conflicts: new Set(['e1', 'e2']) });
      await sim.settle();
      expect(states(sim)).to.deep.equal({ e1: 'testing', e2: 'failed', e3: 'testing' });
      expect(running(sim)).to.deep.equal(['1|', '3|1']);
    });

    it('no required statuses → the group fails instead of starting (start_test_run_no_required_statuses)', () => {
      const r = planOf({ entries: [entry(1), entry(2)], requiredStatuses: [] });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'start_test_run_no_required_statuses', e2: 'start_test_run_no_required_statuses' });
      expect(starts(r.actions)).to.deep.equal([]);
    });

    it('an unusable .trunk/trunk.yaml → the group fails with start_test_run_config_parsing_failure, naming the problem', () => {
      const r = plan({
        ...input({ entries: [entry(1)], requiredStatuses: [] }),
        requiredStatuses: { contexts: [], source: null, configError: '.trunk/trunk.yaml is not valid YAML' },
      });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'start_test_run_config_parsing_failure' });
      expect(starts(r.actions)).to.deep.equal([]);
    });
  });

  describe('evictions restart what was built on them', () => {
    it('a cancelled entry restarts exactly the groups whose base contained it', () => {
      const r = planOf({
        entries: [held(1, 'r1'), entry(2, { state: 'cancelled', lastReason: 'user_requested', currentRunId: 'r2' }), held(3, 'r3'), held(4, 'r4')],
        runs: [run('r1', [1]), run('r2', [2], [1]), run('r3', [3], [1, 2]), run('r4', [4], [1, 2, 3])],
      });
      expect(cancels(r.actions)).to.deep.equal({
        r2: 'user_requested',
        r3: 'prerequisite_merge_item_cancelled',
        r4: 'prerequisite_merge_item_cancelled',
      });
      expect(starts(r.actions)).to.deep.equal(['3|1', '4|1,3']);
    });

    it('a restart by the API keeps the entry in place: groups behind it keep their runs', async () => {
      const sim = new Simulator({ queue: queue({ concurrency: 3 }), entries: [1, 2, 3].map((n) => entry(n)) });
      await sim.settle();
      const e2 = sim.entries.get('e2')!;
      Object.assign(e2, { state: 'pending', currentRunId: null, lastReason: 'tests_restarted_by_api_request', version: e2.version + 1, restartCount: 1 });
      await sim.settle();
      expect(running(sim)).to.deep.equal(['1|', '3|1,2', '2|1']);
      expect(sim.runs.get('run2')!.conclusionReason).to.equal('tests_restarted_by_api_request');
    });

    it('an entry the applier failed at merge time restarts the groups behind it', () => {
      const r = planOf({
        entries: [entry(1, { state: 'failed', lastReason: 'pr_updated_at_merge_time' }), held(2, 'r2', 'tests_passed'), held(3, 'r3')],
        runs: [passed(run('r2', [2], [1])), run('r3', [3], [1, 2])],
      });
      expect(moves(r.actions)).to.deep.equal({ e2: 'pending', e3: 'pending' });
      expect(starts(r.actions)).to.deep.equal(['2|', '3|2']);
    });
  });
});
