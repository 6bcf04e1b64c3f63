// Re-test instead of eject (issue 12 §2): the pure decision, and the planner applying it to a
// failed single entry and to a failed batch before it would bisect.
import { expect } from 'chai';
import { decideFailedRun, type FailedTestEvidence, type RetestInput, type RunTestEvidence } from '../../../../shared/merge-queue/domain/flaky-retest.js';
import { T0, entry, failed, held, mergeOf, passed, planOf, reasons, moves, run, starts } from '../../../../shared/merge-queue/simulation/builders.js';
import type { Action } from '../../../../shared/merge-queue/domain/planner/index.js';

const test = (name: string, over: Partial<FailedTestEvidence> = {}): FailedTestEvidence => ({
  id: `id-${name}`,
  name,
  knownFlaky: false,
  quarantined: false,
  onTarget: null,
  onHead: null,
  ...over,
});
const results = (failedTests: FailedTestEvidence[], uploads = 1): RunTestEvidence => ({
  expected: true,
  uploads,
  runs: 10,
  failed: failedTests.length,
  failedTests,
});
const base: RetestInput = { evidence: null, retriesUsed: 0, flakyRetries: 1, failedOnStatuses: true, concludedAt: 0, waitSeconds: 120, now: 0 };

function details(actions: Action[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of actions) if (a.kind === 'transition_entry') out[a.entry.entryId] = a.detail;
  return out;
}

describe('re-test instead of eject', () => {
  describe('the decision (pure)', () => {
    it('tests again when every failed test was known flaky or is quarantined, naming them', () => {
      const d = decideFailedRun({ ...base, evidence: results([test('a', { knownFlaky: true }), test('b', { quarantined: true })]) });
      expect(d.kind).to.equal('retest');
      expect(d.kind === 'retest' && d.detail).to.equal(
        'only tests known as flaky or quarantined failed (known flaky: a; quarantined: b); testing again (re-test 1 of 1)',
      );
    });

    it('fails when any failed test is neither, naming the real failures', () => {
      const d = decideFailedRun({ ...base, evidence: results([test('a', { knownFlaky: true }), test('real')]) });
      expect(d).to.deep.equal({ kind: 'fail', evidence: 'failed tests not known as flaky: real' });
    });

    it('fails once the group used its re-tests', () => {
      const d = decideFailedRun({ ...base, retriesUsed: 1, evidence: results([test('a', { knownFlaky: true })]) });
      expect(d).to.deep.equal({ kind: 'fail', evidence: 'flaky re-tests used up (1 of 1)' });
      expect(decideFailedRun({ ...base, flakyRetries: 2, retriesUsed: 1, evidence: results([test('a', { knownFlaky: true })]) }).kind).to.equal('retest');
    });

    it('flakyRetries 0, a timeout or no results expected: fails as before, without evidence', () => {
      const flaky = results([test('a', { knownFlaky: true })]);
      expect(decideFailedRun({ ...base, flakyRetries: 0, evidence: flaky })).to.deep.equal({ kind: 'fail', evidence: null });
      expect(decideFailedRun({ ...base, failedOnStatuses: false, evidence: flaky })).to.deep.equal({ kind: 'fail', evidence: null });
      expect(decideFailedRun({ ...base, evidence: null })).to.deep.equal({ kind: 'fail', evidence: null });
      expect(decideFailedRun({ ...base, evidence: { expected: false, uploads: 0, runs: 0, failed: 0, failedTests: [] } })).to.deep.equal({
        kind: 'fail',
        evidence: null,
      });
    });

    it('waits up to testResultsWaitSeconds for results the repository is expected to upload, then fails', () => {
      const none: RunTestEvidence = { expected: true, uploads: 0, runs: 0, failed: 0, failedTests: [] };
      expect(decideFailedRun({ ...base, evidence: none, concludedAt: 1000, now: 5000 })).to.deep.equal({ kind: 'wait', until: 121_000 });
      expect(decideFailedRun({ ...base, evidence: none, concludedAt: 1000, now: 121_000 })).to.deep.equal({
        kind: 'fail',
        evidence: 'no test results within 120 s',
      });
      expect(decideFailedRun({ ...base, evidence: results([]), now: 120_000 })).to.deep.equal({ kind: 'fail', evidence: 'no failed test in its test results' });
      expect(decideFailedRun({ ...base, evidence: none, waitSeconds: 0 }).kind).to.equal('fail');
    });
  });

  describe('the planner', () => {
    const flaky = results([test('flaky_test', { knownFlaky: true })]);

    it('sends a failed single entry back to pending with test_run_retried_known_flaky, and tests it again', () => {
      const r = planOf({ entries: [held(1, 'r1', 'pending_failure')], runs: [failed(run('r1', [1]))], testResults: { r1: flaky } });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_retried_known_flaky' });
      expect(details(r.actions).e1).to.contain('known flaky: flaky_test');
      expect(starts(r.actions)).to.deep.equal(['1|']);
    });

    it('fails the entry when it already had its re-test', () => {
      const retested = held(1, 'r2', 'pending_failure', {
        history: [{ at: T0, from: 'pending_failure', to: 'pending', reason: 'test_run_retried_known_flaky', testRunId: 'r1' }],
      });
      const r = planOf({ entries: [retested], runs: [failed(run('r2', [1]))], testResults: { r2: flaky } });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_required_status_failed' });
      expect(details(r.actions).e1).to.contain('flaky re-tests used up (1 of 1)');
    });

    it('a failed batch whose only failure is flaky is tested again instead of bisected', () => {
      const r = planOf({
        entries: [held(1, 'r1', 'pending_failure'), held(2, 'r1', 'pending_failure')],
        runs: [failed(run('r1', [1, 2]))],
        testResults: { r1: flaky },
        queue: { batch: true, batchingMinSize: 2 },
      });
      expect(reasons(r.actions)).to.deep.equal({ e1: 'test_run_retried_known_flaky', e2: 'test_run_retried_known_flaky' });
      expect(r.actions.some((a) => a.kind === 'transition_entry' && a.set.bisectionOf)).to.equal(false);
    });

    it('a failed batch with a real failure is bisected, the evidence in the detail', () => {
      const r = planOf({
        entries: [held(1, 'r1', 'pending_failure'), held(2, 'r1', 'pending_failure')],
        runs: [failed(run('r1', [1, 2]))],
        testResults: { r1: results([test('real')]) },
        queue: { batch: true, batchingMinSize: 2 },
      });
      expect(reasons(r.actions)).to.include({ e1: 'bisection_required' });
      expect(details(r.actions).e1).to.equal('the batch of 2 failed; bisecting it; failed tests not known as flaky: real');
    });

    it('waits for expected results (a wake-up at the end of the wait); none came: the infrastructure’s fault, or it fails with re-tests off', () => {
      const none: RunTestEvidence = { expected: true, uploads: 0, runs: 0, failed: 0, failedTests: [] };
      const runs = [failed(run('r1', [1]))];
      for (const flakyRetries of [1, 0]) {
        const waiting = planOf({ queue: { flakyRetries }, entries: [held(1, 'r1', 'pending_failure')], runs, testResults: { r1: none } });
        expect(moves(waiting.actions), `flakyRetries ${flakyRetries}`).to.deep.equal({});
        expect(waiting.wakeAt).to.deep.equal(new Date(T0.getTime() + 120_000));
      }
      const after = { entries: [held(1, 'r1', 'pending_failure')], runs, testResults: { r1: none }, now: new Date(T0.getTime() + 120_000) };
      expect(reasons(planOf(after).actions)).to.deep.equal({ e1: 'test_run_retried_not_its_fault' });
      expect(reasons(planOf({ ...after, queue: { notItsFaultRetries: 0 } }).actions)).to.deep.equal({ e1: 'test_run_required_status_failed' });
    });

    it('flakyRetries 0 fails at once, the detail as before', () => {
      const r = planOf({ queue: { flakyRetries: 0 }, entries: [held(1, 'r1', 'pending_failure')], runs: [failed(run('r1', [1]))], testResults: { r1: flaky } });
      expect(details(r.actions)).to.deep.equal({ e1: 'test run r1 failed and nothing ahead or behind explains it' });
    });

    describe('a passing run above settles the re-test', () => {
      const retried = { at: T0, from: 'pending_failure' as const, to: 'pending' as const, reason: 'test_run_retried_known_flaky' as const, testRunId: 'r1' };
      const started = { at: T0, from: 'pending' as const, to: 'testing' as const, reason: 'test_run_started' as const, testRunId: 'r3' };
      const above = passed(run('r2', [2], [1]));

      it('merges the entry under its re-test with the group whose passing run holds it (its own re-test still running)', () => {
        const r = planOf({
          entries: [held(1, 'r3', 'testing', { history: [retried, started] }), held(2, 'r2', 'tests_passed')],
          runs: [failed(run('r1', [1])), above, run('r3', [1])],
          testResults: { r1: flaky },
        });
        expect(mergeOf(r.actions)).to.equal('1,2@r2');
      });

      it('also while the entry waits for its re-test to start', () => {
        const r = planOf({
          entries: [entry(1, { history: [retried] }), held(2, 'r2', 'tests_passed')],
          runs: [failed(run('r1', [1])), above],
          testResults: { r1: flaky },
        });
        expect(mergeOf(r.actions)).to.equal('1,2@r2');
      });

      it('not an entry sent back for another reason, nor one whose re-test concluded', () => {
        const restarted = { ...retried, reason: 'tests_restarted_by_api_request' as const };
        for (const first of [
          entry(1, { history: [restarted] }),
          held(1, 'r3', 'pending_failure', {
            history: [retried, started, { at: T0, from: 'testing', to: 'pending_failure', reason: 'test_run_failed', testRunId: 'r3' }],
          }),
        ]) {
          const r = planOf({
            entries: [first, held(2, 'r2', 'tests_passed')],
            runs: [failed(run('r1', [1])), above, failed(run('r3', [1]))],
            testResults: { r1: flaky },
          });
          expect(mergeOf(r.actions), first.state).to.equal(null);
        }
      });
    });

    it('does not count an entry that is not in the failed group', () => {
      const r = planOf({ entries: [held(1, 'r1', 'pending_failure'), entry(2)], runs: [failed(run('r1', [1]))], testResults: { r1: flaky } });
      expect(reasons(r.actions).e1).to.equal('test_run_retried_known_flaky');
    });
  });
});
