// Correctness under load (issue 3): concurrent identical submissions leave exactly one active
// entry, 1,000 pull requests are all listed in queue order by getQueue, and every transition is
// a compare-and-set recorded with its reason code in the entry's history.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { waitFor } from '../../scripts/lib/wait.js';
import type { ApiResponse } from '../../scripts/lib/test-service.js';
import { PRIORITY_VALUES } from '../../shared/merge-queue/domain/model.js';
import { bulkPullRequests, expectConsistentHistory, makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { entryDocuments, storedEntries } from '../helpers/stored-documents.js';

describe('pull requests: correctness under load', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });

  const activeCount = (q: PrQueue, n: number) => entryDocuments(svc.ctx.db).countDocuments({ queueId: q.queueId, prNumber: n, active: true });

  it('50 concurrent identical submissions of one pull request leave exactly one active entry', async () => {
    const q = await makeQueue(svc);
    await q.pr(1);
    const results = await Promise.all(Array.from({ length: 50 }, () => q.submit(1, { priority: 'high' })));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(await activeCount(q, 1)).to.equal(1);
    const all = await q.entries(1);
    expect(all, 'no entry was created and dropped').to.have.length(1);
    expect(all[0]).to.deep.include({ priorityValue: 10, noBatch: false });
    expect((await q.queue()).enqueuedPullRequests.map((p) => p.prNumber)).to.deep.equal([1]);
    await q.waitState(1, 'testing');
    expectConsistentHistory(await q.entry(1));
  });

  it('50 concurrent submissions with different priorities: one active entry carrying one of them', async () => {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    await q.pr(1);
    const priorities = ['urgent', 'high', 'medium', 'low', 7, 77, 177] as const;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => q.submit(1, { priority: priorities[i % priorities.length], noBatch: i % 2 === 0 })));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(await activeCount(q, 1)).to.equal(1);
    expect(await q.entries(1)).to.have.length(1);
    const e = await q.entry(1);
    const allowed = priorities.map((p) => (typeof p === 'number' ? p : PRIORITY_VALUES[p]));
    expect(allowed).to.include(e.priorityValue);
  });

  it('concurrent submissions of many pull requests each get exactly one entry, with distinct sequence numbers', async () => {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    await bulkPullRequests(q.fx, 1, 20, q.fx.initialSha);
    const results = await Promise.all(Array.from({ length: 20 * 5 }, (_, i) => q.submit((i % 20) + 1)));
    for (const r of results) expect(r.status).to.equal(200);
    const entries = await q.entries();
    expect(entries).to.have.length(20);
    expect(new Set(entries.map((e) => e.prNumber)).size).to.equal(20);
    expect(new Set(entries.map((e) => e.seq)).size).to.equal(20);
  });

  it('cancels racing resubmissions never leave two active entries, and every history is a consistent chain', async () => {
    const q = await makeQueue(svc);
    await q.pr(1);
    await q.submitOk(1);
    const ops: (() => Promise<ApiResponse>)[] = [];
    for (let i = 0; i < 30; i++)
      ops.push(
        () => q.cancel(1),
        () => q.submit(1, { priority: i % 2 ? 'low' : 'high' }),
      );
    const results = await Promise.all(ops.map((op) => op()));
    for (const r of results) expect([200, 409], JSON.stringify(r.body)).to.include(r.status);
    expect(await activeCount(q, 1)).to.be.at.most(1);
    const entries = await q.entries(1);
    expect(entries.filter((e) => e.state !== 'cancelled').length).to.be.at.most(1);
    // Let the engine settle, then every entry's history must be a chain of single steps.
    await waitFor('queue settled', async () => {
      const live = await q.entries(1);
      return live.every((e) => e.state === 'cancelled' || e.state === 'testing');
    });
    for (const e of await q.entries(1)) expectConsistentHistory(e);
  });

  it('1,000 pull requests submitted to one queue are all listed by getQueue, in queue order', async function () {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    const total = 1000;
    const created = performance.now();
    const heads = await bulkPullRequests(q.fx, 1, total, q.fx.initialSha);
    expect(heads.size).to.equal(total);
    const refsMs = performance.now() - created;

    // Priorities cycle through names and numbers; submissions go in waves of 25 concurrent
    // requests, so every entry of a wave was submitted after every entry of the waves before it.
    const priorityOf = (n: number): string | number => ['low', 'medium', 'high', 7, 150][n % 5] as string | number;
    const valueOf = (p: string | number) => (typeof p === 'number' ? p : PRIORITY_VALUES[p as keyof typeof PRIORITY_VALUES]);
    const wave = 25;
    const started = performance.now();
    for (let first = 1; first <= total; first += wave) {
      const numbers = Array.from({ length: Math.min(wave, total - first + 1) }, (_, i) => first + i);
      const results = await Promise.all(numbers.map((n) => q.submit(n, { priority: priorityOf(n) })));
      for (const r of results) expect(r.status, JSON.stringify(r.body)).to.equal(200);
    }
    const submitMs = performance.now() - started;

    const waveOf = (n: number) => Math.floor((n - 1) / wave);
    const checkOrder = (listed: { prNumber: number; priorityValue: number; state: string }[], what: string) => {
      expect(listed, what).to.have.length(total);
      expect(new Set(listed.map((p) => p.prNumber)).size, what).to.equal(total);
      for (let i = 1; i < listed.length; i++) {
        const a = listed[i - 1]!;
        const b = listed[i]!;
        if (a.state !== b.state) continue;
        expect(a.priorityValue, `${what}: #${a.prNumber} before #${b.prNumber}`).to.be.at.most(b.priorityValue);
        if (a.priorityValue === b.priorityValue) expect(waveOf(a.prNumber), `${what}: #${a.prNumber} before #${b.prNumber}`).to.be.at.most(waveOf(b.prNumber));
      }
      for (const p of listed) expect(p.priorityValue).to.equal(valueOf(priorityOf(p.prNumber)));
    };

    const readStarted = performance.now();
    const held = await q.queue();
    const getQueueMs = performance.now() - readStarted;
    checkOrder(held.enqueuedPullRequests, 'held');
    expect(held.enqueuedPullRequests.every((p) => p.state === 'not_ready')).to.equal(true);
    // The store agrees: the exact (priority, seq) order, one entry per pull request.
    const stored = await svc.ctx.mergeQueue.store.entries.listActive(q.queueId);
    expect(held.enqueuedPullRequests.map((p) => p.id)).to.deep.equal(stored.map((e) => e.id));

    const admitStarted = performance.now();
    await q.update({ state: 'running' });
    const running = await waitFor(
      'all admitted',
      async () => {
        const body = await q.queue();
        const states = body.enqueuedPullRequests.map((p) => p.state);
        return states.filter((s) => s === 'pending').length === total - 1 && states[0] === 'testing' ? body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const admitMs = performance.now() - admitStarted;
    checkOrder(running.enqueuedPullRequests, 'running');
    expect(running.enqueuedPullRequests[0]!.priorityValue).to.equal(7);
    console.log(
      `      1,000 pull requests: refs ${refsMs.toFixed(0)} ms, submitted in ${(submitMs / 1000).toFixed(1)} s ` +
        `(${(total / (submitMs / 1000)).toFixed(0)}/s), getQueue ${getQueueMs.toFixed(0)} ms, all admitted in ${(admitMs / 1000).toFixed(1)} s`,
    );
    const sample = await q.entries();
    for (const e of sample.slice(0, 50)) expectConsistentHistory(e);
  });

  it('a transition is a compare-and-set: of two writers with the same expectation exactly one wins', async () => {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    await q.pr(1);
    await q.submitOk(1);
    const e = await q.entry(1);
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        svc.ctx.mergeQueue.store.entries.transition(
          e.id,
          { from: ['not_ready'], version: e.version },
          { to: 'cancelled', reason: 'user_requested', detail: `writer ${i}` },
        ),
      ),
    );
    expect(attempts.filter((a) => a !== null)).to.have.length(1);
    const after = await q.entry(1);
    expect(after.history).to.have.length(2);
    expect(after.version).to.equal(e.version + 1);
    // A stale expectation (state or version) writes nothing.
    expect(await svc.ctx.mergeQueue.store.entries.transition(e.id, { from: ['not_ready'] }, { to: 'pending', reason: 'merge_item_now_ready' })).to.equal(null);
    expect(
      await svc.ctx.mergeQueue.store.entries.transition(e.id, { from: ['cancelled'], version: e.version }, { to: 'pending', reason: 'merge_item_now_ready' }),
    ).to.equal(null);
    expect((await q.entry(1)).version).to.equal(after.version);
    expectConsistentHistory(await q.entry(1));
  });

  it('history never goes back in time, even when a writer stamps an earlier time than the last transition', async () => {
    const q = await makeQueue(svc, { settings: { state: 'paused' } });
    await q.pr(1);
    await q.submitOk(1);
    const e = await q.entry(1);
    // A planning pass stamps its transitions with the time it started loading its snapshot.
    const earlier = new Date(e.stateChangedAt.getTime() - 5_000);
    const moved = await svc.ctx.mergeQueue.store.entries.transition(
      e.id,
      { from: ['not_ready'], version: e.version },
      { to: 'pending', reason: 'merge_item_now_ready' },
      earlier,
    );
    expect(moved).not.to.equal(null);
    const after = await q.entry(1);
    expect(after.history[1]!.at.getTime()).to.be.at.least(after.history[0]!.at.getTime());
    expect(after.stateChangedAt.getTime()).to.equal(after.history[1]!.at.getTime());
    expectConsistentHistory(after);
  });

  it('every entry this service created has a consistent history', async () => {
    const all = await storedEntries(svc.ctx.db, {});
    expect(all.length).to.be.greaterThan(1000);
    for (const e of all) expectConsistentHistory(e);
  });
});
