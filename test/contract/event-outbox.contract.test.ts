// Events written with the state they describe (issue 22 §5), against every database: each change
// puts its event into the outbox of the document it changes in the same update — a write that
// loses its compare-and-set writes no event — and the relay moves events into the event store
// once, however often it (or its sweep) runs, leaving nothing behind.
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import { createMergeQueueStore, outboxSourcesOf, type MergeQueueStore } from '../../shared/merge-queue/store/store.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { createEventStore, type EventStore } from '../../shared/platform/events/store/event-store.js';
import { OutboxRelay, RELAY_GRACE_MS } from '../../shared/platform/events/outbox-relay.js';
import type { OutboxEvent } from '../../shared/platform/events/outbox.js';
import { createLogger } from '../../shared/platform/logging.js';
import { makeEntry } from '../../scripts/lib/entries.js';
import { run } from '../../shared/merge-queue/simulation/builders.js';
import type { Database } from '../../shared/platform/database/collection.js';

const logger = createLogger('silent');

/** The events waiting in a document's outbox. */
async function outboxOf(db: Database, collection: string, id: string): Promise<OutboxEvent[]> {
  const doc = await db.collection<{ _id: string; outbox?: OutboxEvent[] }>(collection).findOne({ _id: id });
  return doc?.outbox ?? [];
}

forEachDatabase('event outboxes', (getDb) => {
  let store: MergeQueueStore;
  let events: EventStore;
  beforeEach(async () => {
    // No relay: what each write puts into its outbox stays there to be looked at.
    store = createMergeQueueStore(getDb());
    events = createEventStore(getDb());
    await ensureIndexes(store, events);
  });

  describe('written with the change', () => {
    it('an entry carries submitted, then the event of each state that has one, ordered by its version; a lost compare-and-set writes none', async () => {
      const entry = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 7, state: 'not_ready' });
      await store.entries.insert(entry);
      await store.entries.transition(entry.id, { from: ['not_ready'] }, { to: 'pending', reason: 'merge_item_now_ready' });
      await store.entries.transition(entry.id, { from: ['pending'] }, { to: 'testing', reason: 'test_run_started', testRunId: 'r1' });
      await store.entries.transition(entry.id, { from: ['testing'] }, { to: 'tests_passed', reason: 'test_run_passed' });
      expect(await store.entries.transition(entry.id, { from: ['pending'] }, { to: 'cancelled', reason: 'user_requested' })).to.equal(null);
      expect(await store.entries.transition(entry.id, { from: ['tests_passed'], version: 1 }, { to: 'merged', reason: 'merge_graph_merge' })).to.equal(null);
      await store.entries.transition(entry.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', detail: 'merged' });

      const outbox = await outboxOf(getDb(), 'entries', entry.id);
      expect(outbox.map((e) => e.type)).to.deep.equal(['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged']);
      expect(new Set(outbox.map((e) => e.orderKey))).to.deep.equal(new Set(['pr:q1:7']));
      expect(outbox.map((e) => e.order.version)).to.deep.equal([1, 2, 3, 5]);
      expect(outbox[2]!.subject).to.deep.include({ entryId: entry.id, runId: 'r1', reason: 'test_run_started' });
      expect(outbox[3]!.subject).to.deep.include({ reason: 'merge_graph_merge', detail: 'merged' });
      expect(new Set(outbox.map((e) => e.id)).size).to.equal(4);
      expect((await store.entries.findById(entry.id))?.state).to.equal('merged');
    });

    it('a run of several pull requests carries its start and its failure or cancellation (once); a run of one carries none', async () => {
      await store.testRuns.insert(run('single', [1]));
      await store.testRuns.insert(run('batch', [1, 2]));
      await store.testRuns.conclude('batch', 'failed', 'test_run_failed');
      expect(await store.testRuns.conclude('batch', 'failed', 'test_run_failed')).to.equal(null);
      await store.testRuns.conclude('single', 'failed', 'test_run_failed');
      expect((await outboxOf(getDb(), 'test_runs', 'batch')).map((e) => [e.type, e.orderKey])).to.deep.equal([
        ['pull_request_batch.testing', 'run:batch'],
        ['pull_request_batch.failed', 'run:batch'],
      ]);
      expect(await outboxOf(getDb(), 'test_runs', 'single')).to.deep.equal([]);
    });

    it('the last pull request of a batch to merge (or fail pending) carries the batch event, under an id fixed by run and type', async () => {
      const a = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 1, state: 'tests_passed' });
      const b = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 2, state: 'tests_passed' });
      const c = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 3, state: 'testing' });
      const d = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 4, state: 'testing' });
      for (const e of [a, b, c, d]) await store.entries.insert(e);
      await store.testRuns.insert({ ...run('batch', [1, 2]), entryIds: [a.id, b.id] });
      await store.testRuns.insert({ ...run('other', [3, 4]), entryIds: [c.id, d.id] });
      await store.entries.transition(a.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', testRunId: 'batch' });
      await store.entries.transition(b.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', testRunId: 'batch' });
      expect((await outboxOf(getDb(), 'entries', a.id)).map((e) => e.type)).to.deep.equal(['pull_request.submitted', 'pull_request.merged']);
      const last = await outboxOf(getDb(), 'entries', b.id);
      expect(last.map((e) => e.type)).to.deep.equal(['pull_request.submitted', 'pull_request.merged', 'pull_request_batch.merged']);
      expect(last[2]).to.deep.include({ id: 'batch.pull_request_batch.merged', orderKey: 'run:batch' });
      expect(last[2]!.subject).to.deep.include({ queueId: 'q1', runId: 'batch', reason: 'merge_graph_merge' });

      await store.entries.transition(c.id, { from: ['testing'] }, { to: 'pending_failure', reason: 'test_run_required_status_failed', testRunId: 'other' });
      await store.entries.transition(d.id, { from: ['testing'] }, { to: 'pending_failure', reason: 'test_run_required_status_failed', testRunId: 'other' });
      expect((await outboxOf(getDb(), 'entries', d.id)).map((e) => e.type)).to.deep.equal([
        'pull_request.submitted',
        'pull_request.pending_failure',
        'pull_request_batch.pending_failure',
      ]);
    });

    it('a queue carries queue.state_changed with the state it replaced, only when the state changes', async () => {
      const queue = await store.queues.create('o1', { host: 'h', owner: 'o', name: 'n' }, 'main', { mode: 'single', concurrency: 1, targetSha: 'abc' });
      const paused = await store.queues.update(queue.id, queue.version, { state: 'paused' }, 'state=paused');
      await store.queues.update(queue.id, paused!.version, { concurrency: 3 }, 'concurrency=3');
      expect(await store.queues.update(queue.id, queue.version, { state: 'running' }, 'stale')).to.equal(null);
      const outbox = await outboxOf(getDb(), 'queues', queue.id);
      expect(outbox).to.have.length(1);
      expect(outbox[0]).to.deep.include({ type: 'queue.state_changed', orderKey: `queue:${queue.id}` });
      expect(outbox[0]!.subject).to.deep.include({ previousState: 'running', state: 'paused' });
    });

    it('a queue carries queue.target_broken and .target_recovered when its target branch breaks and is green again, not when its failing tests change', async () => {
      const queue = await store.queues.create('o1', { host: 'h', owner: 'o', name: 'n' }, 'main', { mode: 'single', concurrency: 1, targetSha: 'abc' });
      const since = new Date('2026-11-01T00:00:00Z');
      const broken = await store.queues.recordTargetHealth(queue.id, queue.version, { sha: 'h1', tests: [{ id: 't1', name: 'checkout' }], since }, 'h1');
      expect(broken?.targetBroken).to.deep.equal({ sha: 'h1', tests: [{ id: 't1', name: 'checkout' }], since });
      expect((await store.queues.findById(queue.id))?.targetBroken).to.deep.equal({ sha: 'h1', tests: [{ id: 't1', name: 'checkout' }], since });
      const more = {
        sha: 'h2',
        tests: [
          { id: 't1', name: 'checkout' },
          { id: 't2', name: 'cart' },
        ],
        since,
      };
      const moved = await store.queues.recordTargetHealth(queue.id, broken!.version, more, 'h2');
      expect(await store.queues.recordTargetHealth(queue.id, broken!.version, null, 'h3')).to.equal(null);
      const green = await store.queues.recordTargetHealth(queue.id, moved!.version, null, 'h3');
      expect(green?.targetBroken).to.equal(null);
      const outbox = await outboxOf(getDb(), 'queues', queue.id);
      expect(outbox.map((e) => [e.type, e.subject.targetSha, e.subject.testNames])).to.deep.equal([
        ['queue.target_broken', 'h1', '["checkout"]'],
        ['queue.target_recovered', 'h3', '["checkout","cart"]'],
      ]);
      expect((await store.queues.history(queue.id)).map((h) => h.change).slice(1)).to.deep.equal([
        'target branch broken at h1, failing there: checkout',
        'target branch broken at h2, failing there: checkout, cart',
        'target branch green at h3',
      ]);
      expect((await store.queues.listRefs('o1', null)).map((r) => r.targetBroken)).to.deep.equal([false]);
    });
  });

  describe('relayed once', () => {
    const published: string[] = [];
    let publishCalls = 0;
    const relayOf = () =>
      new OutboxRelay({
        events: events.events,
        requestPublish: async (ids) => {
          publishCalls++;
          published.push(...ids);
        },
        logger,
      });
    beforeEach(() => {
      published.length = 0;
      publishCalls = 0;
    });

    it('moves the events of many documents at once: stored, cleared, and their publishing asked for in one call', async () => {
      const crashed = createMergeQueueStore(getDb());
      const entries = [21, 22, 23].map((prNumber) => makeEntry({ queueId: 'q1', orgId: 'o1', prNumber, state: 'not_ready' }));
      for (const e of entries) await crashed.entries.insert(e);
      const written = await Promise.all(entries.map(async (e) => ({ docId: e.id, events: await outboxOf(getDb(), 'entries', e.id) })));
      const source = outboxSourcesOf(crashed).find((s) => s.name === 'entries');
      // One document's events were relayed before (an overlapping sweep): stored once all the same.
      expect(await events.events.insertManyFromOutbox(written[0]!.events)).to.equal(1);
      await relayOf().relayMany(source!, [...written, { docId: 'no-events', events: [] }]);
      expect(publishCalls).to.equal(1);
      expect(published).to.deep.equal(written.map((w) => w.events[0]!.id));
      for (const e of entries) expect(await outboxOf(getDb(), 'entries', e.id)).to.deep.equal([]);
      const stored = await Promise.all(published.map((id) => events.events.findById(id)));
      expect(stored.map((e) => e?.type)).to.deep.equal(['pull_request.submitted', 'pull_request.submitted', 'pull_request.submitted']);
    });

    it('moves an entry’s events into the event store, clears the outbox, and asks for each to be published', async () => {
      const relayed = createMergeQueueStore(getDb(), relayOf());
      const entry = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 9, state: 'not_ready' });
      await relayed.entries.insert(entry);
      await relayed.entries.transition(entry.id, { from: ['not_ready'] }, { to: 'pending', reason: 'merge_item_now_ready' });
      expect(await outboxOf(getDb(), 'entries', entry.id)).to.deep.equal([]);
      expect(published).to.have.length(2);
      const stored = await Promise.all(published.map((id) => events.events.findById(id)));
      expect(stored.map((e) => e?.type)).to.deep.equal(['pull_request.submitted', 'pull_request.queued']);
      expect(stored.every((e) => e?.publishedAt === null)).to.equal(true);
    });

    it('leaves the events of a write whose relay failed for the sweep, which moves them once, however often it runs', async () => {
      // A store whose relay never runs after the write: what a crash between the two leaves.
      const crashed = createMergeQueueStore(getDb());
      const entry = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 11, state: 'not_ready' });
      await crashed.entries.insert(entry);
      const written = await outboxOf(getDb(), 'entries', entry.id);
      expect(written.map((e) => e.type)).to.deep.equal(['pull_request.submitted']);

      const restarted = relayOf();
      for (const source of outboxSourcesOf(createMergeQueueStore(getDb()))) restarted.addSource(source);
      // Too fresh: a relay after the write may still be on its way.
      expect(await restarted.sweep(new Date(written[0]!.createdAt.getTime() + 1))).to.equal(0);
      const later = new Date(written[0]!.createdAt.getTime() + RELAY_GRACE_MS + 1);
      expect(await restarted.sweep(later)).to.equal(1);
      expect(await restarted.sweep(later)).to.equal(0);
      expect(published).to.deep.equal([written[0]!.id]);
      expect((await events.events.findById(written[0]!.id))?.type).to.equal('pull_request.submitted');
      expect(await outboxOf(getDb(), 'entries', entry.id)).to.deep.equal([]);
      // A second relay of the same event (an overlap of relay and sweep) stores nothing new.
      expect(await events.events.insertManyFromOutbox(written)).to.equal(0);
    });
  });
});
