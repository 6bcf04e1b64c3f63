// getQueue.enqueuedPullRequests and listPullRequests over real HTTP (issue 3; wire-contract §2.1,
// §2.10, §2.13): queue order across every state group, the item fields, state/since filters,
// cursor paging through everything, take bounds, and every error case.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { pushToBranch } from '../../scripts/lib/git-fixtures.js';
import { bulkPullRequests, expectError, makeQueue, SERVICE_OPTIONS, UUID, type EnqueuedBody, type PrQueue } from './pull-requests-support.js';
import { planIdle } from '../helpers/planning.js';

const ITEM_KEYS = [
  'id',
  'state',
  'stateChangedAt',
  'priorityValue',
  'priorityName',
  'usedDefaultPriorityName',
  'skipTheLine',
  'noBatch',
  'prNumber',
  'prTitle',
  'prSha',
  'prBaseBranch',
  'prAuthor',
];

describe('pull requests: getQueue and listPullRequests', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  describe('getQueue.enqueuedPullRequests', () => {
    it('lists every entry that has not ended in queue order: testing/passed/pending-failure, pending by priority, not_ready', async () => {
      const q = await makeQueue(svc, { concurrency: 3 });
      // main moves first (a later move would restart every run): #7 below conflicts with it.
      await pushToBranch(q.fx, 'main', [{ message: 'main edits line two', files: { 'shared.txt': 'one\nTWO\nthree\n' } }]);
      for (const n of [1, 2, 3]) await q.pr(n, { metadata: { title: `PR ${n}`, author: `dev${n}` } });
      for (const n of [1, 2, 3]) await q.submitOk(n);
      await q.runOf(1);
      await q.runOf(2);
      await q.runOf(3);
      await q.ci(2, 'success');
      await q.ci(3, 'failure');
      await q.waitState(2, 'tests_passed');
      await q.waitState(3, 'pending_failure');
      // Only #1 is still being tested; with concurrency 1 its slot is the only one, so the next
      // ones wait in pending, by priority then submission.
      await q.update({ concurrency: 1 });
      await planIdle(svc);
      await q.pr(4);
      await q.pr(5);
      await q.pr(6);
      await q.submitOk(4, { priority: 'low' });
      await q.submitOk(5, { priority: 'high', noBatch: true });
      await q.submitOk(6);
      // Not ready: a conflict with main, and a base that is not main.
      await q.pr(7, { base: q.fx.initialSha, commits: [{ message: 'conflict', files: { 'shared.txt': 'one\n2\nthree\n' } }] });
      await q.pr(8, { metadata: { base: 'release' } });
      await q.submitOk(7, { priority: 'urgent' });
      await q.submitOk(8, { priority: 'high' });
      // A cancelled entry is not listed.
      await q.pr(9);
      await q.submitOk(9);
      expect((await q.cancel(9)).status).to.equal(200);
      try {
        for (const n of [4, 5, 6]) await q.waitState(n, 'pending', 5000);
      } catch (err) {
        for (const e of await q.entries()) console.log(e.prNumber, e.state, JSON.stringify(e.history.map((h) => [h.to, h.reason])));
        throw err;
      }

      const queue = await q.queue();
      expect(queue.enqueuedPullRequests.map((p) => [p.prNumber, p.state])).to.deep.equal([
        [1, 'testing'],
        [2, 'tests_passed'],
        [3, 'pending_failure'],
        [5, 'pending'],
        [6, 'pending'],
        [4, 'pending'],
        [7, 'not_ready'],
        [8, 'not_ready'],
      ]);
      for (const item of queue.enqueuedPullRequests) {
        expect(Object.keys(item)).to.have.members(ITEM_KEYS);
        expect(item.id).to.match(UUID);
      }
      const first = queue.enqueuedPullRequests[0]!;
      expect(first).to.deep.include({
        prTitle: 'PR 1',
        prAuthor: 'dev1',
        prBaseBranch: 'main',
        priorityName: 'medium',
        usedDefaultPriorityName: 'medium',
        skipTheLine: false,
        noBatch: false,
      });
      expect(first.prSha).to.equal((await q.entry(1)).prSha);
      const five = queue.enqueuedPullRequests.find((p) => p.prNumber === 5)!;
      expect(five).to.deep.include({ priorityValue: 10, priorityName: 'high', noBatch: true });
      const seven = queue.enqueuedPullRequests.find((p) => p.prNumber === 7)!;
      expect(seven).to.deep.include({ priorityValue: 0, skipTheLine: true });
      expect(queue.enqueuedPullRequests.find((p) => p.prNumber === 8)?.prBaseBranch).to.equal('release');
    });

    it('is empty for a queue without entries, and lists nothing once every entry ended', async () => {
      const q = await makeQueue(svc, { settings: { state: 'paused' } });
      expect((await q.queue()).enqueuedPullRequests).to.deep.equal([]);
      await q.pr(1);
      await q.submitOk(1);
      expect((await q.queue()).enqueuedPullRequests).to.have.length(1);
      expect((await q.cancel(1)).status).to.equal(200);
      expect((await q.queue()).enqueuedPullRequests).to.deep.equal([]);
    });
  });

  describe('listPullRequests', () => {
    let q: PrQueue;
    const count = 120;
    before(async () => {
      q = await makeQueue(svc, { settings: { state: 'paused' } });
      await bulkPullRequests(q.fx, 1, count, q.fx.initialSha);
      for (let n = 1; n <= count; n++) await q.submitOk(n, n % 3 === 0 ? { priority: 'high' } : {});
      for (let n = 1; n <= 10; n++) expect((await q.cancel(n)).status).to.equal(200);
    });

    it('pages through every entry with the cursor, newest submission first; the last page has no nextCursor', async () => {
      const seen: EnqueuedBody[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await q.list({ take: 25, ...(cursor ? { cursor } : {}) });
        pages++;
        expect(page.pullRequests.length).to.be.at.most(25);
        seen.push(...page.pullRequests);
        cursor = page.nextCursor;
        if (cursor) expect(cursor).to.match(UUID);
      } while (cursor && pages < 20);
      expect(pages).to.equal(Math.ceil(count / 25));
      expect(seen.map((p) => p.prNumber)).to.deep.equal(Array.from({ length: count }, (_, i) => count - i));
      expect(new Set(seen.map((p) => p.id)).size).to.equal(count);
      for (const item of seen) expect(Object.keys(item)).to.have.members(ITEM_KEYS);
    });

    it('takes 50 by default; a page that ends exactly at the last entry has no nextCursor', async () => {
      const first = await q.list();
      expect(first.pullRequests).to.have.length(50);
      expect(first.nextCursor).to.be.a('string');
      const exact = await q.list({ take: 20, cursor: (await q.list({ take: 100 })).nextCursor });
      expect(exact.pullRequests.map((p) => p.prNumber)).to.deep.equal(Array.from({ length: 20 }, (_, i) => 20 - i));
      expect(exact).not.to.have.property('nextCursor');
    });

    it('filters by state (any letter case) and pages within the filter', async () => {
      const cancelled = await q.list({ state: 'CANCELLED' });
      expect(cancelled.pullRequests.map((p) => p.prNumber)).to.deep.equal([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      expect(cancelled.pullRequests.every((p) => p.state === 'cancelled')).to.equal(true);
      const notReady = await q.list({ state: 'not_ready', take: 100 });
      expect(notReady.pullRequests).to.have.length(100);
      const rest = await q.list({ state: 'not_ready', take: 100, cursor: notReady.nextCursor });
      expect(rest.pullRequests.map((p) => p.prNumber)).to.deep.equal([10 + 10, 19, 18, 17, 16, 15, 14, 13, 12, 11]);
      expect(rest).not.to.have.property('nextCursor');
      expect((await q.list({ state: 'merged' })).pullRequests).to.deep.equal([]);
    });

    it('since: the pull requests that concluded since then', async () => {
      const all = await q.list({ since: new Date(Date.now() - 3_600_000).toISOString() });
      expect(all.pullRequests.map((p) => p.prNumber)).to.deep.equal([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      const mark = new Date();
      expect((await q.cancel(11)).status).to.equal(200);
      const recent = await q.list({ since: mark.toISOString() });
      expect(recent.pullRequests.map((p) => p.prNumber)).to.deep.equal([11]);
      expect((await q.list({ since: mark.toISOString(), state: 'cancelled' })).pullRequests.map((p) => p.prNumber)).to.deep.equal([11]);
      expect((await q.list({ since: mark.toISOString(), state: 'not_ready' })).pullRequests).to.deep.equal([]);
      expect((await q.list({ since: new Date(Date.now() + 60_000).toISOString() })).pullRequests).to.deep.equal([]);
    });

    it('take 1 and 100 are the bounds', async () => {
      expect((await q.list({ take: 1 })).pullRequests).to.have.length(1);
      expect((await q.list({ take: 100 })).pullRequests).to.have.length(100);
      for (const take of [0, 101, -1, 1.5, '10', null]) {
        const err = expectError(await svc.post('/listPullRequests', { ...q.ref, take }), 400, 'invalid_request', String(take));
        expect(err.error.details.map((d) => d.path)).to.include('/take');
      }
    });

    it('400 for a cursor that is not a UUID, unknown, or from another queue', async () => {
      expectError(await svc.post('/listPullRequests', { ...q.ref, cursor: 'not-a-uuid' }), 400, 'invalid_request');
      expectError(await svc.post('/listPullRequests', { ...q.ref, cursor: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_cursor');
      const other = await makeQueue(svc, { settings: { state: 'paused' } });
      await other.pr(1);
      await other.submitOk(1);
      const foreign = (await other.get(1)).id;
      expectError(await svc.post('/listPullRequests', { ...q.ref, cursor: foreign }), 400, 'invalid_cursor');
    });

    it('400 for a bad state or since; 404 for an unknown queue', async () => {
      expectError(await svc.post('/listPullRequests', { ...q.ref, state: 'done' }), 400, 'invalid_request');
      expectError(await svc.post('/listPullRequests', { ...q.ref, since: 'yesterday' }), 400, 'invalid_request');
      expectError(await svc.post('/listPullRequests', { ...q.ref, since: 1700000000 }), 400, 'invalid_request');
      expectError(await svc.post('/listPullRequests', { ...q.ref, targetBranch: 'nope' }), 404, 'queue_not_found');
      const other = await svc.addOrg(`list-${Date.now()}`);
      expectError(await svc.post('/listPullRequests', q.ref, { token: other.token }), 404, 'queue_not_found');
    });
  });
});
