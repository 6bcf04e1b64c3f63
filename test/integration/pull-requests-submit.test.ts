// submitPullRequest over real HTTP and real git repositories (issue 3; wire-contract §2.2;
// merge-queue-behaviour §1.12, §1.17): what is read from the provider, priorities, the new
// entry, resubmission, queue states that hold submissions, and every error case.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { makeEntry } from '../../scripts/lib/entries.js';
import { pushToBranch, writePullMetadata } from '../../scripts/lib/git-fixtures.js';
import { expectConsistentHistory, expectError, makeQueue, SERVICE_OPTIONS, UUID, type ErrorBody, type PrQueue } from './pull-requests-support.js';
import { planExclusively } from '../helpers/planning.js';

describe('pull requests: submitPullRequest', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  describe('what is read from the provider', () => {
    it('reads title, head sha, author and base from pulls/N.json', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      const head = await q.pr(1, { metadata: { title: 'Add the frobnicator', author: 'alice', base: 'main', headBranch: 'feature/frob' } });
      await q.submitOk(1);
      const s = await q.get(1);
      expect(s).to.deep.include({
        prNumber: 1,
        prTitle: 'Add the frobnicator',
        prAuthor: 'alice',
        prSha: head,
        prBaseBranch: 'main',
        state: 'not_ready',
      });
    });

    it('without pulls/N.json: the head commit subject and author name, and the queue branch as base', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      const head = await q.pr(2, {
        commits: [
          { message: 'Teach the widget to spin\n\nLonger body.', files: { 'spin.txt': 'spin\n' }, author: { name: 'Bob Builder', email: 'bob@example.com' } },
        ],
      });
      await q.submitOk(2);
      const s = await q.get(2);
      expect(s).to.deep.include({ prTitle: 'Teach the widget to spin', prAuthor: 'Bob Builder', prSha: head, prBaseBranch: 'main' });
      expect(s.readiness.doesBaseBranchMatch).to.equal(true);
    });

    it('a base branch other than the queue branch is accepted but not ready (doesBaseBranchMatch false)', async () => {
      const q = await makeQueue(svc);
      await pushToBranch(q.fx, 'release', [{ message: 'release', files: { 'rel.txt': 'r\n' } }]);
      await q.pr(3, { metadata: { base: 'release' } });
      await q.submitOk(3);
      const s = await q.get(3);
      expect(s.prBaseBranch).to.equal('release');
      expect(s.readiness.doesBaseBranchMatch).to.equal(false);
      await planExclusively(svc, q.queueId);
      expect((await q.get(3)).state).to.equal('not_ready');
    });
  });

  describe('the new entry', () => {
    it('starts not_ready with a fresh UUID id, default priority and noBatch false', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      await q.submitOk(1);
      const s = await q.get(1);
      expect(s.id).to.match(UUID);
      expect(s).to.deep.include({
        state: 'not_ready',
        priorityValue: 100,
        priorityName: 'medium',
        usedDefaultPriorityName: 'medium',
        skipTheLine: false,
        noBatch: false,
        forceEnqueued: false,
        isCurrentlySubmittedToQueue: true,
        verifiedByTestRun: null,
      });
      const e = await q.entry(1);
      expect(e.history).to.have.length(1);
      expect(e.history[0]).to.deep.include({ from: null, to: 'not_ready', reason: 'api_requested' });
    });

    it('is admitted at once when ready and the queue runs (not_ready → pending → testing)', async () => {
      const q = await makeQueue(svc);
      await q.pr(1);
      await q.submitOk(1, { noBatch: true });
      await q.waitState(1, 'testing');
      const e = await q.entry(1);
      expect(e.history.map((h) => [h.from, h.to, h.reason])).to.deep.equal([
        [null, 'not_ready', 'api_requested'],
        ['not_ready', 'pending', 'merge_item_now_ready'],
        ['pending', 'testing', 'test_run_started'],
      ]);
      expect(e.noBatch).to.equal(true);
      expectConsistentHistory(e);
    });
  });

  describe('priority', () => {
    const accepted: [unknown, { value: number; name: string; skip: boolean; used?: string }][] = [
      [undefined, { value: 100, name: 'medium', skip: false, used: 'medium' }],
      [null, { value: 100, name: 'medium', skip: false, used: 'medium' }],
      ['urgent', { value: 0, name: 'urgent', skip: true, used: 'urgent' }],
      ['HIGH', { value: 10, name: 'high', skip: false, used: 'high' }],
      ['Medium', { value: 100, name: 'medium', skip: false, used: 'medium' }],
      ['low', { value: 200, name: 'low', skip: false, used: 'low' }],
      ['LoW', { value: 200, name: 'low', skip: false, used: 'low' }],
      [0, { value: 0, name: 'urgent', skip: true }],
      [1, { value: 1, name: 'high', skip: false }],
      [10, { value: 10, name: 'high', skip: false }],
      [42, { value: 42, name: 'medium', skip: false }],
      [100, { value: 100, name: 'medium', skip: false }],
      [201, { value: 201, name: 'low', skip: false }],
      [255, { value: 255, name: 'low', skip: false }],
    ];

    it('accepts a number 0–255, a name in any letter case, null or nothing', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      let n = 0;
      for (const [priority, want] of accepted) {
        n++;
        await q.pr(n);
        await q.submitOk(n, priority === undefined ? {} : { priority });
        const s = await q.get(n);
        expect(s.priorityValue, String(priority)).to.equal(want.value);
        expect(s.priorityName, String(priority)).to.equal(want.name);
        expect(s.skipTheLine, String(priority)).to.equal(want.skip);
        expect(s.usedDefaultPriorityName, String(priority)).to.be.a('string');
        if (want.used) expect(s.usedDefaultPriorityName, String(priority)).to.equal(want.used);
      }
    });

    it('answers 400 for anything else and creates no entry', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
      const rejected: unknown[] = [-1, 256, 1.5, 4294967296, 'default', '10', '', 'urgent!', 'highest', {}, { value: 1 }, true, false, [], ['high']];
      for (const priority of rejected) {
        const res = await q.submit(1, { priority });
        expect(res.status, JSON.stringify(priority)).to.equal(400);
        expect(['invalid_priority', 'invalid_request'], JSON.stringify(priority)).to.include((res.body as ErrorBody).error.code);
      }
      // Out-of-range numbers and unknown names name the field and list what is allowed.
      const named = expectError(await q.submit(1, { priority: 256 }), 400, 'invalid_priority');
      expect(named.error.details.map((d) => d.path)).to.include('/priority');
      expect(named.error.message).to.match(/urgent/);
      expect(await q.entries(1)).to.have.length(0);
      expectError(await q.getRaw({ number: 1 }), 404, 'pull_request_not_submitted');
    });

    it('orders by priority, then submission, in getQueue (held not_ready, then admitted)', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      const plan: [number, unknown][] = [
        [1, 'low'],
        [2, undefined],
        [3, 'high'],
        [4, null],
        [5, 'URGENT'],
        [6, 10],
        [7, 42],
        [8, 255],
        [9, 0],
      ];
      for (const [n, priority] of plan) {
        await q.pr(n);
        await q.submitOk(n, priority === undefined ? {} : { priority });
      }
      const expected = [5, 9, 3, 6, 7, 2, 4, 1, 8];
      const held = await q.queue();
      expect(held.enqueuedPullRequests.map((p) => p.prNumber)).to.deep.equal(expected);
      expect(held.enqueuedPullRequests.every((p) => p.state === 'not_ready')).to.equal(true);

      await q.update({ state: 'running' });
      await q.waitState(5, 'testing');
      for (const n of expected.slice(1)) await q.waitState(n, 'pending');
      const running = await q.queue();
      expect(running.enqueuedPullRequests.map((p) => [p.prNumber, p.state])).to.deep.equal(expected.map((n, i) => [n, i === 0 ? 'testing' : 'pending']));
    });
  });

  describe('resubmitting', () => {
    let q: PrQueue;
    beforeEach(async () => {
      // Concurrency 1 with a required status nobody reports: #1 stays testing, the rest pending.
      q = await makeQueue(svc);
      for (const n of [1, 2, 3, 4]) await q.pr(n);
      for (const n of [1, 2, 3, 4]) await q.submitOk(n);
      await q.waitState(1, 'testing');
      for (const n of [2, 3, 4]) await q.waitState(n, 'pending');
    });

    it('an active entry keeps its id and place; priority and noBatch are updated without error', async () => {
      const before = await q.entry(3);
      await q.submitOk(3, { priority: 'high', noBatch: true });
      const after = await q.entry(3);
      expect(after.id).to.equal(before.id);
      expect(after.seq).to.equal(before.seq);
      expect(after.state).to.equal('pending');
      expect(after.history).to.deep.equal(before.history);
      expect(after).to.deep.include({ priorityValue: 10, priorityName: 'high', noBatch: true });
      // High goes ahead of #2 among the pending ones; #1 keeps testing (only urgent interrupts).
      const queue = await q.queue();
      expect(queue.enqueuedPullRequests.map((p) => [p.prNumber, p.state])).to.deep.equal([
        [1, 'testing'],
        [3, 'pending'],
        [2, 'pending'],
        [4, 'pending'],
      ]);
      // Back to medium: its original place (submission order) among equals again.
      await q.submitOk(3, { priority: 'medium' });
      const again = await q.entry(3);
      expect(again.id).to.equal(before.id);
      expect(again.noBatch, 'noBatch omitted is left as it was').to.equal(true);
      expect((await q.queue()).enqueuedPullRequests.map((p) => p.prNumber)).to.deep.equal([1, 2, 3, 4]);
      expect(await q.entries(3)).to.have.length(1);
    });

    it('an identical resubmission changes nothing (same version)', async () => {
      await q.submitOk(2, { priority: 'low' });
      const before = await q.entry(2);
      await q.submitOk(2, { priority: 200 });
      const after = await q.entry(2);
      expect(after.version).to.equal(before.version);
      expect(after.priorityValue).to.equal(200);
    });

    it('a resubmission without priority keeps the priority it has; null resets it to the default', async () => {
      await q.submitOk(4, { priority: 'urgent' });
      await q.submitOk(4);
      expect((await q.get(4)).priorityValue, 'priority omitted').to.equal(0);
      await q.submitOk(4, { priority: null });
      const s = await q.get(4);
      expect(s.priorityValue).to.equal(100);
      expect(s.priorityName).to.equal('medium');
    });

    // Raising a queued entry's priority reorders, never interrupts — except to urgent: an urgent
    // entry that is ready interrupts however it became urgent (issue 4's rule; docs/decisions.md).
    it('raising a pending entry to high restarts nothing; it only goes first', async () => {
      const testing = await q.entry(1);
      await q.submitOk(4, { priority: 'high' });
      await planExclusively(svc, q.queueId);
      const after = await q.entry(1);
      expect(after.currentRunId).to.equal(testing.currentRunId);
      expect(after.restartCount).to.equal(0);
      expect((await q.queue()).enqueuedPullRequests.map((p) => p.prNumber)).to.deep.equal([1, 4, 2, 3]);
    });

    it('an active testing entry stays testing with its run when resubmitted', async () => {
      const before = await q.entry(1);
      await q.submitOk(1, { priority: 'low' });
      const after = await q.entry(1);
      expect(after.id).to.equal(before.id);
      expect(after.state).to.equal('testing');
      expect(after.currentRunId).to.equal(before.currentRunId);
      expect(after.restartCount).to.equal(0);
    });

    it('after cancelled: a new entry with a new id; the old one stays cancelled', async () => {
      const old = await q.entry(2);
      expect((await q.cancel(2)).status).to.equal(200);
      await q.submitOk(2);
      const fresh = await q.get(2);
      expect(fresh.id).not.to.equal(old.id);
      expect(fresh.isCurrentlySubmittedToQueue).to.equal(true);
      const all = await q.entries(2);
      expect(all.map((e) => [e.id, e.state])).to.deep.equal([
        [old.id, 'cancelled'],
        [fresh.id, (await q.entry(2)).state],
      ]);
      // A new entry is a new submission: it queues behind those already waiting.
      await q.waitState(2, 'pending');
      expect((await q.queue()).enqueuedPullRequests.map((p) => p.prNumber)).to.deep.equal([1, 3, 4, 2]);
    });

    it('after failed: a new entry with a new id', async () => {
      const old = await q.entry(1);
      await q.ci(1, 'failure');
      await q.waitState(1, 'failed');
      await q.submitOk(1);
      const fresh = await q.get(1);
      expect(fresh.id).not.to.equal(old.id);
      expect((await q.entries(1)).map((e) => e.state)[0]).to.equal('failed');
      expect(await q.entries(1)).to.have.length(2);
    });

    it('after merged: a new entry when the pull request is open again; a merged pull request is 409 pull_request_closed', async () => {
      const old = await q.entry(1);
      await q.ci(1, 'success');
      await q.waitState(1, 'merged');
      expectError(await q.submit(1), 409, 'pull_request_closed');
      expect(await q.entries(1)).to.have.length(1);
      expect((await q.get(1)).id).to.equal(old.id);

      // An entry that ended merged while its pull request is (again) open at the provider.
      await q.pr(50);
      const merged = makeEntry({ queueId: q.queueId, orgId: svc.orgId, prNumber: 50, state: 'merged', seq: 1_000_000 });
      merged.history = [
        { at: new Date(), from: null, to: 'not_ready', reason: 'api_requested' },
        { at: new Date(), from: 'not_ready', to: 'merged', reason: 'manual_merge' },
      ];
      await svc.ctx.mergeQueue.store.entries.insert(merged);
      await q.submitOk(50);
      const fresh = await q.get(50);
      expect(fresh.id).not.to.equal(merged.id);
      expect(fresh.isCurrentlySubmittedToQueue).to.equal(true);
    });
  });

  describe('queue states that hold submissions', () => {
    for (const state of ['paused', 'draining'] as const) {
      it(`a ${state} queue accepts and holds it in not_ready; it is admitted once the queue runs`, async () => {
        const q = await makeQueue(svc, { settings: { state } });
        await q.pr(1);
        await q.submitOk(1);
        // A planning pass changes nothing while the queue is not running.
        await planExclusively(svc, q.queueId);
        const held = await q.get(1);
        expect(held.state).to.equal('not_ready');
        expect(held.readiness).to.deep.equal({
          doesBaseBranchMatch: true,
          gitHubMergeability: 'mergeable',
          requiresImpactedTargets: false,
          hasImpactedTargets: false,
        });
        await q.update({ state: 'running' });
        await q.waitState(1, 'testing');
        expect((await q.entry(1)).history[1]).to.deep.include({ from: 'not_ready', to: 'pending', reason: 'merge_item_now_ready' });
      });
    }

    it('a switching_modes queue accepts and holds it in not_ready until the switch completes', async () => {
      const q = await makeQueue(svc);
      await q.pr(1);
      await q.pr(2);
      await q.submitOk(1);
      await q.waitState(1, 'testing');
      await q.update({ mode: 'parallel' });
      expect((await q.queue()).state).to.equal('switching_modes');
      await q.submitOk(2);
      await planExclusively(svc, q.queueId);
      const held = await q.get(2);
      expect(held.state).to.equal('not_ready');
      // Judged in the mode being switched to: parallel needs impacted targets.
      expect(held.readiness.requiresImpactedTargets).to.equal(true);
      const targets = await q.targets({ number: 2, sha: held.prSha }, ['//widgets:spin']);
      expect(targets.status).to.equal(200);
      await planExclusively(svc, q.queueId);
      expect((await q.get(2)).state).to.equal('not_ready');

      await q.ci(1, 'success');
      await q.waitState(1, 'merged');
      await q.waitState(2, 'testing');
      const queue = await q.queue();
      expect(queue).to.deep.include({ state: 'running', mode: 'parallel' });
    });
  });

  describe('errors', () => {
    let q: PrQueue;
    before(async () => {
      q = await makeQueue(svc, { settings: { state: 'paused' } });
      await q.pr(1);
    });

    it('404 pull_request_not_found for a pull request the provider does not have (number 0 included)', async () => {
      expectError(await q.submit(999), 404, 'pull_request_not_found');
      expectError(await q.submit(0), 404, 'pull_request_not_found');
      expect(await q.entries()).to.have.length(0);
    });

    it('404 queue_not_found for an unknown branch, repository or another organisation', async () => {
      expectError(await svc.post('/submitPullRequest', { ...q.ref, targetBranch: 'release', pr: { number: 1 } }), 404, 'queue_not_found');
      expectError(
        await svc.post('/submitPullRequest', { repo: { ...q.ref.repo, name: 'nowhere' }, targetBranch: 'main', pr: { number: 1 } }),
        404,
        'queue_not_found',
      );
      const other = await svc.addOrg(`other-${Date.now()}`);
      expectError(await svc.post('/submitPullRequest', { ...q.ref, pr: { number: 1 } }, { token: other.token }), 404, 'queue_not_found');
      expect(await q.entries()).to.have.length(0);
    });

    it('409 pull_request_closed for a closed pull request', async () => {
      await q.pr(2, { metadata: { state: 'closed' } });
      expectError(await q.submit(2), 409, 'pull_request_closed');
    });

    it('409 pull_request_draft for a draft pull request (it would be tested, then cancelled by the next poll)', async () => {
      await q.pr(4, { metadata: { draft: true } });
      expectError(await q.submit(4), 409, 'pull_request_draft');
      expect(await q.entries(4)).to.have.length(0);
      await writePullMetadata(q.fx, 4, { draft: false });
      await q.submitOk(4);
      expect((await q.get(4)).state).to.equal('not_ready');
    });

    it('401 without a token', async () => {
      const res = await svc.post('/submitPullRequest', { ...q.ref, pr: { number: 1 } }, { token: null });
      expect(res.status).to.equal(401);
    });

    it('400 for bad shapes, naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ ...q.ref }, '/pr'],
        [{ ...q.ref, pr: {} }, '/pr/number'],
        [{ ...q.ref, pr: { number: -1 } }, '/pr/number'],
        [{ ...q.ref, pr: { number: '1' } }, '/pr/number'],
        [{ ...q.ref, pr: { number: 1.5 } }, '/pr/number'],
        [{ ...q.ref, pr: { number: 4294967296 } }, '/pr/number'],
        [{ ...q.ref, pr: { number: 1, sha: 'abc' } }, '/pr/sha'],
        [{ ...q.ref, pr: 1 }, '/pr'],
        [{ repo: q.ref.repo, pr: { number: 1 } }, '/targetBranch'],
        [{ ...q.ref, pr: { number: 1 }, noBatch: 'yes' }, '/noBatch'],
        [{ ...q.ref, pr: { number: 1 }, skipTheLine: true }, '/skipTheLine'],
        [{ ...q.ref, targetBranch: { $ne: null }, pr: { number: 1 } }, '/targetBranch'],
      ];
      for (const [body, pointer] of cases) {
        const res = await svc.post('/submitPullRequest', body);
        const err = expectError(res, 400, 'invalid_request', JSON.stringify(body));
        expect(
          err.error.details.map((d) => d.path),
          JSON.stringify(body),
        ).to.include(pointer);
      }
      expect(await q.entries(1)).to.have.length(0);
    });

    it('a malformed pulls/N.json is an error, not a silently guessed pull request', async () => {
      await q.pr(3);
      await writePullMetadata(q.fx, 3, { title: 42 });
      const res = await q.submit(3);
      expect(res.status).to.be.at.least(400);
      expect(await q.entries(3)).to.have.length(0);
    });
  });
});
