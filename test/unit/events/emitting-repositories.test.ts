// Every transition written through the repositories emits its domain event — after the write,
// and only when the write happened.
import { expect } from 'chai';
import { withDomainEvents } from '../../../shared/events/emitting-repositories.js';
import type { EventEmitter } from '../../../shared/events/event-outbox.js';
import type { EmittedEvent } from '../../../shared/events/event-types.js';
import { inMemoryRepositories } from '../../../shared/merge-queue/simulation/in-memory-repositories.js';
import { makeEntry } from '../../../scripts/lib/entries.js';
import { run } from '../../../shared/merge-queue/simulation/builders.js';

describe('repositories with domain events', () => {
  const setup = () => {
    const emitted: EmittedEvent[] = [];
    const events: EventEmitter = { emit: async (e) => void emitted.push(e) };
    const inner = inMemoryRepositories();
    return { emitted, inner, repos: withDomainEvents(inner, events) };
  };

  it('emits submitted on insert, then the event of each state that has one, ordered by entry version', async () => {
    const { emitted, inner, repos } = setup();
    const entry = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 7, state: 'not_ready' });
    await repos.entries.insert(entry);
    await repos.entries.transition(entry.id, { from: ['not_ready'] }, { to: 'pending', reason: 'merge_item_now_ready' });
    await repos.entries.transition(entry.id, { from: ['pending'] }, { to: 'testing', reason: 'test_run_started', testRunId: 'r1' });
    await repos.entries.transition(entry.id, { from: ['testing'] }, { to: 'tests_passed', reason: 'test_run_passed' });
    // A guard that no longer holds writes nothing and emits nothing.
    expect(await repos.entries.transition(entry.id, { from: ['pending'] }, { to: 'cancelled', reason: 'user_requested' })).to.equal(null);
    await repos.entries.transition(entry.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', detail: 'merged' });

    expect(emitted.map((e) => e.type)).to.deep.equal(['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged']);
    expect(new Set(emitted.map((e) => e.orderKey))).to.deep.equal(new Set(['pr:q1:7']));
    const versions = emitted.map((e) => e.order.version);
    expect(versions).to.deep.equal([...versions].sort((a, b) => a - b));
    expect(emitted[2]!.subject).to.deep.include({ entryId: entry.id, runId: 'r1', reason: 'test_run_started' });
    expect(emitted[3]!.subject).to.deep.include({ reason: 'merge_graph_merge', detail: 'merged' });
    expect((await inner.entries.findById(entry.id))?.state).to.equal('merged');
  });

  it('emits batch events for runs of several pull requests only', async () => {
    const { emitted, repos } = setup();
    await repos.testRuns.insert(run('single', [1]));
    await repos.testRuns.insert(run('batch', [1, 2]));
    await repos.testRuns.conclude('batch', 'failed', 'test_run_failed');
    await repos.testRuns.conclude('batch', 'failed', 'test_run_failed');
    expect(emitted.map((e) => [e.type, e.orderKey])).to.deep.equal([
      ['pull_request_batch.testing', 'run:batch'],
      ['pull_request_batch.failed', 'run:batch'],
    ]);
  });

  it('emits pull_request_batch.merged / .pending_failure once the last pull request of the batch gets there', async () => {
    const { emitted, repos } = setup();
    const a = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 1, state: 'tests_passed' });
    const b = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 2, state: 'tests_passed' });
    const c = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 3, state: 'testing' });
    const d = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 4, state: 'testing' });
    for (const e of [a, b, c, d]) await repos.entries.insert(e);
    await repos.testRuns.insert({ ...run('batch', [1, 2]), entryIds: [a.id, b.id] });
    await repos.testRuns.insert({ ...run('other', [3, 4]), entryIds: [c.id, d.id] });
    await repos.testRuns.insert({ ...run('single', [1]), entryIds: [a.id] });
    emitted.length = 0;

    await repos.entries.transition(a.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', testRunId: 'batch' });
    expect(emitted.map((e) => e.type)).to.deep.equal(['pull_request.merged']);
    await repos.entries.transition(b.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', testRunId: 'batch' });
    expect(emitted.map((e) => e.type)).to.deep.equal(['pull_request.merged', 'pull_request.merged', 'pull_request_batch.merged']);
    expect(emitted[2]).to.deep.include({ orderKey: 'run:batch' });
    expect(emitted[2]!.subject).to.deep.include({ queueId: 'q1', runId: 'batch', reason: 'merge_graph_merge' });

    emitted.length = 0;
    await repos.entries.transition(c.id, { from: ['testing'] }, { to: 'pending_failure', reason: 'test_run_required_status_failed', testRunId: 'other' });
    await repos.entries.transition(d.id, { from: ['testing'] }, { to: 'pending_failure', reason: 'test_run_required_status_failed', testRunId: 'other' });
    expect(emitted.map((e) => e.type)).to.deep.equal(['pull_request.pending_failure', 'pull_request.pending_failure', 'pull_request_batch.pending_failure']);
    expect(emitted[2]!.subject).to.deep.include({ runId: 'other', reason: 'test_run_required_status_failed' });
  });

  it('emits no batch event for a run of one pull request', async () => {
    const { emitted, repos } = setup();
    const a = makeEntry({ queueId: 'q1', orgId: 'o1', prNumber: 1, state: 'tests_passed' });
    await repos.entries.insert(a);
    await repos.testRuns.insert({ ...run('single', [1]), entryIds: [a.id] });
    emitted.length = 0;
    await repos.entries.transition(a.id, { from: ['tests_passed'] }, { to: 'merged', reason: 'merge_graph_merge', testRunId: 'single' });
    expect(emitted.map((e) => e.type)).to.deep.equal(['pull_request.merged']);
  });

  it('emits queue.state_changed when the state changes, with the state it replaced', async () => {
    const { emitted, repos } = setup();
    const queue = await repos.queues.create('o1', { host: 'h', owner: 'o', name: 'n' }, 'main', { mode: 'single', concurrency: 1, targetSha: 'abc' });
    const paused = await repos.queues.update(queue.id, queue.version, { state: 'paused' }, 'state=paused');
    await repos.queues.update(queue.id, paused!.version, { concurrency: 3 }, 'concurrency=3');
    expect(await repos.queues.update(queue.id, queue.version, { state: 'running' }, 'stale')).to.equal(null);
    expect(emitted).to.have.length(1);
    expect(emitted[0]).to.deep.include({ type: 'queue.state_changed', orderKey: `queue:${queue.id}` });
    expect(emitted[0]!.subject).to.deep.include({ previousState: 'running', state: 'paused' });
  });
});
