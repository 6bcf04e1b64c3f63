// cancelPullRequest and restartTestsOnPullRequest over real HTTP (issue 3; wire-contract §2.3,
// §2.4; merge-queue-behaviour §1.18 rows 15 and 19): from every state they apply to, the
// reasons recorded, keeping the place, and every error case.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { pushToBranch } from '../../scripts/lib/git-fixtures.js';
import type { ApiResponse } from '../../scripts/lib/test-service.js';
import { expectConsistentHistory, expectError, makeQueue, SERVICE_OPTIONS } from './pull-requests-support.js';
import { planExclusively, planIdle } from '../helpers/planning.js';

function expectOk(res: ApiResponse, path: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expectOpenApiResponse(path, res.body);
}

describe('pull requests: cancel and restart', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  describe('cancelPullRequest', () => {
    it('cancels a not_ready entry (user_requested); it leaves getQueue and is no longer submitted', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.pr(2);
      await q.submitOk(1);
      await q.submitOk(2);
      expectOk(await q.cancel(1), '/cancelPullRequest');
      const s = await q.get(1, { timeline: true });
      expect(s.state).to.equal('cancelled');
      expect(s.isCurrentlySubmittedToQueue).to.equal(false);
      expect(s.timeline?.[0]).to.deep.include({ state: 'cancelled', previousState: 'not_ready', reason: 'user_requested' });
      expect((await q.queue()).enqueuedPullRequests.map((p) => p.prNumber)).to.deep.equal([2]);
      expectConsistentHistory(await q.entry(1));
    });

    it('cancels a pending and a testing entry; the next one starts testing', async () => {
      const q = await makeQueue(svc);
      for (const n of [1, 2, 3]) await q.pr(n);
      for (const n of [1, 2, 3]) await q.submitOk(n);
      const run = await q.runOf(1);
      await q.waitState(2, 'pending');

      expectOk(await q.cancel(2), '/cancelPullRequest');
      expect((await q.entry(2)).history.at(-1)).to.deep.include({ from: 'pending', to: 'cancelled', reason: 'user_requested' });

      expectOk(await q.cancel(1), '/cancelPullRequest');
      expect((await q.entry(1)).history.at(-1)).to.deep.include({ from: 'testing', to: 'cancelled', reason: 'user_requested' });
      await waitFor('#1 run cancelled', async () => (await svc.ctx.mergeQueue.store.testRuns.findById(run.id))?.status === 'cancelled');
      await q.waitState(3, 'testing');
      for (const n of [1, 2, 3]) expectConsistentHistory(await q.entry(n));
    });

    it('cancelling a pull request ahead restarts the runs built on it, without it', async () => {
      const q = await makeQueue(svc, { concurrency: 2 });
      for (const n of [1, 2]) await q.pr(n);
      for (const n of [1, 2]) await q.submitOk(n);
      await q.runOf(1);
      const second = await q.runOf(2);
      expect(second.baseEntryIds).to.deep.equal([(await q.entry(1)).id]);
      expectOk(await q.cancel(1), '/cancelPullRequest');
      const rerun = await waitFor('#2 re-tested without #1', async () => {
        const e = await q.entry(2);
        if (e.state !== 'testing' || !e.currentRunId || e.currentRunId === second.id) return undefined;
        return svc.ctx.mergeQueue.store.testRuns.findById(e.currentRunId);
      });
      expect(rerun?.baseEntryIds).to.deep.equal([]);
      const restarted = (await q.entry(2)).history.find((h) => h.from === 'testing' && h.to === 'pending');
      expect(restarted?.reason).to.equal('prerequisite_merge_item_cancelled');
      expectConsistentHistory(await q.entry(2));
    });

    it('404 pull_request_not_submitted when never submitted to that queue; 404 for an unknown queue', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      expectError(await q.cancel(1), 404, 'pull_request_not_submitted');
      expectError(await q.cancel(777), 404, 'pull_request_not_submitted');
      expectError(await svc.post('/cancelPullRequest', { ...q.ref, targetBranch: 'release', pr: { number: 1 } }), 404, 'queue_not_found');
      // Submitted to another queue of the same repository does not count.
      await pushToBranch(q.fx, 'release', [{ message: 'release', files: { 'release.txt': 'r\n' } }]);
      const release = { ...q.ref, targetBranch: 'release' };
      expect((await svc.post('/createQueue', release)).status).to.equal(200);
      expect((await svc.post('/updateQueue', { ...release, state: 'paused' })).status).to.equal(200);
      expect((await svc.post('/submitPullRequest', { ...release, pr: { number: 1 } })).status).to.equal(200);
      expectError(await q.cancel(1), 404, 'pull_request_not_submitted');
      expectError(await q.restart(1), 404, 'pull_request_not_submitted');
      // Another organisation does not see the queue at all.
      await q.submitOk(1);
      const other = await svc.addOrg(`cancel-${Date.now()}`);
      expectError(await svc.post('/cancelPullRequest', { ...q.ref, pr: { number: 1 } }, { token: other.token }), 404, 'queue_not_found');
      expect((await q.get(1)).state).to.equal('not_ready');
      expect((await svc.post('/cancelPullRequest', { ...release, pr: { number: 1 } })).status).to.equal(200);
      expect((await q.get(1)).state, 'cancelling in one queue leaves the other alone').to.equal('not_ready');
    });

    it('409 pr_not_active once the latest entry ended (cancelled, failed, merged)', async () => {
      const q = await makeQueue(svc);
      for (const n of [1, 2, 3]) await q.pr(n);
      await q.submitOk(1);
      expectOk(await q.cancel(1), '/cancelPullRequest');
      expectError(await q.cancel(1), 409, 'pr_not_active');

      await q.submitOk(2);
      await q.ci(2, 'failure');
      await q.waitState(2, 'failed');
      expectError(await q.cancel(2), 409, 'pr_not_active');

      await q.submitOk(3);
      await q.ci(3, 'success');
      await q.waitState(3, 'merged');
      const err = expectError(await q.cancel(3), 409, 'pr_not_active');
      expect(err.error.message).to.match(/merged/);
    });

    it('50 concurrent cancels of one entry: exactly one succeeds, one history entry', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      const results = await Promise.all(Array.from({ length: 50 }, () => q.cancel(1)));
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'pr_not_active');
      const e = await q.entry(1);
      expect(e.history.filter((h) => h.to === 'cancelled')).to.have.length(1);
      expectConsistentHistory(e);
    });

    it('400 for bad shapes', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      for (const pr of [undefined, {}, { number: -1 }, { number: '1' }, { number: 1, branch: 'x' }, { branch: 'x' }]) {
        const body = pr === undefined ? { ...q.ref } : { ...q.ref, pr };
        expectError(await svc.post('/cancelPullRequest', body), 400, 'invalid_request', JSON.stringify(pr));
        expectError(await svc.post('/restartTestsOnPullRequest', body), 400, 'invalid_request', JSON.stringify(pr));
      }
    });
  });

  describe('restartTestsOnPullRequest', () => {
    it('testing → pending (tests_restarted_by_api_request) keeping its place; a new run starts; restartCount + 1', async () => {
      const q = await makeQueue(svc);
      for (const n of [1, 2, 3]) await q.pr(n);
      for (const n of [1, 2, 3]) await q.submitOk(n);
      const first = await q.runOf(1);
      const before = await q.entry(1);
      expectOk(await q.restart(1), '/restartTestsOnPullRequest');
      const rerun = await waitFor('#1 re-tested', async () => {
        const e = await q.entry(1);
        return e.state === 'testing' && e.currentRunId && e.currentRunId !== first.id ? e : undefined;
      });
      expect(rerun.id).to.equal(before.id);
      expect(rerun.seq).to.equal(before.seq);
      expect(rerun.restartCount).to.equal(1);
      const restart = rerun.history.find((h) => h.reason === 'tests_restarted_by_api_request');
      expect(restart).to.deep.include({ from: 'testing', to: 'pending' });
      expect((await svc.ctx.mergeQueue.store.testRuns.findById(first.id))?.status).to.equal('cancelled');
      expect((await q.queue()).enqueuedPullRequests.map((p) => [p.prNumber, p.state])).to.deep.equal([
        [1, 'testing'],
        [2, 'pending'],
        [3, 'pending'],
      ]);
      const s = await q.get(1, { timeline: true });
      expect(s.restartCount).to.equal(1);
      expect(s.timeline?.find((t) => t.reason === 'tests_restarted_by_api_request')).to.deep.include({ state: 'pending', previousState: 'testing' });
      expectConsistentHistory(rerun);
    });

    it('in a paused queue the restarted entry waits in pending, ahead of the others', async () => {
      const q = await makeQueue(svc);
      for (const n of [1, 2]) await q.pr(n);
      for (const n of [1, 2]) await q.submitOk(n);
      const first = await q.runOf(1);
      // #2 must be admitted before the pause: a paused queue admits nothing.
      await q.waitState(2, 'pending');
      await q.update({ state: 'paused' });
      await planIdle(svc);
      expectOk(await q.restart(1), '/restartTestsOnPullRequest');
      await waitFor('#1 run cancelled', async () => (await svc.ctx.mergeQueue.store.testRuns.findById(first.id))?.status === 'cancelled');
      await planExclusively(svc, q.queueId);
      const s = await q.get(1);
      expect(s.state).to.equal('pending');
      expect(s.restartCount).to.equal(1);
      expect((await q.queue()).enqueuedPullRequests.map((p) => [p.prNumber, p.state])).to.deep.equal([
        [1, 'pending'],
        [2, 'pending'],
      ]);
      // Only one restart can win from one state.
      const again = await Promise.all(Array.from({ length: 10 }, () => q.restart(1)));
      for (const r of again) expectError(r, 409, 'pr_not_restartable');
      await q.update({ state: 'running' });
      await q.waitState(1, 'testing');
    });

    it('tests_passed → pending, re-tested on the same predicted base', async () => {
      const q = await makeQueue(svc, { concurrency: 2 });
      for (const n of [1, 2]) await q.pr(n);
      for (const n of [1, 2]) await q.submitOk(n);
      await q.runOf(1);
      const passed = await q.ci(2, 'success');
      await q.waitState(2, 'tests_passed');
      expectOk(await q.restart(2), '/restartTestsOnPullRequest');
      const rerun = await waitFor('#2 re-tested', async () => {
        const e = await q.entry(2);
        return e.state === 'testing' && e.currentRunId && e.currentRunId !== passed.id ? e : undefined;
      });
      expect(rerun.history.find((h) => h.reason === 'tests_restarted_by_api_request')).to.deep.include({ from: 'tests_passed', to: 'pending' });
      expect(rerun.restartCount).to.equal(1);
      const run = await svc.ctx.mergeQueue.store.testRuns.findById(rerun.currentRunId!);
      expect(run?.baseEntryIds).to.deep.equal([(await q.entry(1)).id]);
      expect((await q.entry(1)).state, 'the pull request ahead is not disturbed').to.equal('testing');
      expectConsistentHistory(rerun);
    });

    it('pending_failure → pending, re-tested', async () => {
      const q = await makeQueue(svc, { concurrency: 2 });
      for (const n of [1, 2]) await q.pr(n);
      for (const n of [1, 2]) await q.submitOk(n);
      await q.runOf(1);
      const failed = await q.ci(2, 'failure');
      await q.waitState(2, 'pending_failure');
      expectOk(await q.restart(2), '/restartTestsOnPullRequest');
      const rerun = await waitFor('#2 re-tested', async () => {
        const e = await q.entry(2);
        return e.state === 'testing' && e.currentRunId && e.currentRunId !== failed.id ? e : undefined;
      });
      expect(rerun.history.find((h) => h.reason === 'tests_restarted_by_api_request')).to.deep.include({ from: 'pending_failure', to: 'pending' });
      expect(rerun.restartCount).to.equal(1);
      // The re-test passes, #1 passes: both merge, in order.
      await q.ci(2, 'success');
      await q.ci(1, 'success');
      await q.waitState(1, 'merged');
      await q.waitState(2, 'merged');
      for (const n of [1, 2]) expectConsistentHistory(await q.entry(n));
    });

    it('restarting the pull request ahead does not re-test the ones behind it', async () => {
      const q = await makeQueue(svc, { concurrency: 2 });
      for (const n of [1, 2]) await q.pr(n);
      for (const n of [1, 2]) await q.submitOk(n);
      const first = await q.runOf(1);
      const second = await q.runOf(2);
      expectOk(await q.restart(1), '/restartTestsOnPullRequest');
      await waitFor('#1 re-tested', async () => {
        const e = await q.entry(1);
        return e.state === 'testing' && e.currentRunId !== first.id;
      });
      await planExclusively(svc, q.queueId);
      const behind = await q.entry(2);
      expect(behind.currentRunId, JSON.stringify(behind.history.map((h) => [h.from, h.to, h.reason]))).to.equal(second.id);
      expect(behind.restartCount).to.equal(0);
    });

    it('409 pr_not_restartable in not_ready, pending and the final states', async () => {
      const q = await makeQueue(svc);
      for (const n of [1, 2, 3, 4]) await q.pr(n);
      await q.update({ state: 'paused' });
      await q.submitOk(1);
      expectError(await q.restart(1), 409, 'pr_not_restartable');
      await q.update({ state: 'running' });
      await q.submitOk(2);
      await q.runOf(1);
      await q.waitState(2, 'pending');
      expectError(await q.restart(2), 409, 'pr_not_restartable');
      expectOk(await q.cancel(2), '/cancelPullRequest');
      expectError(await q.restart(2), 409, 'pr_not_restartable');
      await q.ci(1, 'failure');
      await q.waitState(1, 'failed');
      expectError(await q.restart(1), 409, 'pr_not_restartable');
      await q.submitOk(3);
      await q.ci(3, 'success');
      await q.waitState(3, 'merged');
      const err = expectError(await q.restart(3), 409, 'pr_not_restartable');
      expect(err.error.message).to.match(/merged/);
    });

    it('404 when never submitted or the queue is unknown', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      expectError(await q.restart(1), 404, 'pull_request_not_submitted');
      expectError(await svc.post('/restartTestsOnPullRequest', { ...q.ref, targetBranch: 'nope', pr: { number: 1 } }), 404, 'queue_not_found');
    });
  });
});
