// The merge-queue repositories with domain events: every write that is a transition (an entry
// submitted or changing state, a batch run starting or ending, a queue changing state) emits its
// event once the write succeeded. The services are unchanged: they receive these repositories.
import type { MergeQueueRepositories } from '../merge-queue/store/store.js';
import type { EntryRepository } from '../merge-queue/store/entry-repository.js';
import type { QueueRepository } from '../merge-queue/store/queue-repository.js';
import type { TestRunRepository } from '../merge-queue/store/test-run-repository.js';
import type { Entry, TestRun } from '../merge-queue/domain/model.js';
import { EVENT_OF_STATE, type BatchEventType } from './event-types.js';
import type { EventEmitter } from './event-outbox.js';

// Each wrapper is an object whose prototype is the inner repository: the methods it does not
// override are the inner one's, called on it.
const prOrderKey = (e: Pick<Entry, 'queueId' | 'prNumber'>) => `pr:${e.queueId}:${e.prNumber}`;

const isBatch = (run: TestRun) => run.entryIds.length > 1;

/** Entry states whose batch event fires when the last pull request of the batch reaches them (wire-contract §5.1). */
const BATCH_EVENT_OF_STATE: Readonly<Partial<Record<Entry['state'], BatchEventType>>> = {
  merged: 'pull_request_batch.merged',
  pending_failure: 'pull_request_batch.pending_failure',
};

function emittingEntries(inner: EntryRepository, runs: TestRunRepository, events: EventEmitter): EntryRepository {
  // The batch event of `entry`'s transition into `state`, once every pull request of its run is there.
  const emitBatchOf = async (entry: Entry, runId: string | null | undefined, type: BatchEventType, reason: string): Promise<void> => {
    if (!runId) return;
    const run = await runs.findById(runId);
    if (!run || !isBatch(run)) return;
    const members = await inner.findByIds(run.entryIds);
    if (members.length !== run.entryIds.length || !members.every((m) => m.state === entry.state)) return;
    await events.emit({
      orgId: run.orgId,
      type,
      orderKey: `run:${run.id}`,
      order: { at: entry.stateChangedAt, version: 1 },
      subject: { queueId: run.queueId, runId: run.id, reason },
    });
  };
  return Object.assign(Object.create(inner) as EntryRepository, {
    async insert(entry: Entry): Promise<void> {
      await inner.insert(entry);
      await events.emit({
        orgId: entry.orgId,
        type: 'pull_request.submitted',
        orderKey: prOrderKey(entry),
        order: { at: entry.submittedAt, version: entry.version },
        subject: { queueId: entry.queueId, entryId: entry.id, reason: entry.lastReason },
      });
    },
    async transition(...args: Parameters<EntryRepository['transition']>): Promise<Entry | null> {
      const [, , change] = args;
      const entry = await inner.transition(...args);
      const type = EVENT_OF_STATE[change.to];
      if (entry && type) {
        await events.emit({
          orgId: entry.orgId,
          type,
          orderKey: prOrderKey(entry),
          order: { at: entry.stateChangedAt, version: entry.version },
          subject: {
            queueId: entry.queueId,
            entryId: entry.id,
            runId: change.testRunId ?? entry.currentRunId ?? entry.verifiedByTestRun,
            reason: change.reason,
            ...(change.detail !== undefined ? { detail: change.detail } : {}),
          },
        });
      }
      const batchType = BATCH_EVENT_OF_STATE[change.to];
      if (entry && batchType) await emitBatchOf(entry, change.testRunId ?? entry.currentRunId ?? entry.verifiedByTestRun, batchType, change.reason);
      return entry;
    },
  });
}

function emittingTestRuns(inner: TestRunRepository, events: EventEmitter): TestRunRepository {
  const emitBatch = (run: TestRun, type: 'pull_request_batch.testing' | 'pull_request_batch.failed' | 'pull_request_batch.canceled', at: Date, version: number) =>
    events.emit({
      orgId: run.orgId,
      type,
      orderKey: `run:${run.id}`,
      order: { at, version },
      subject: { queueId: run.queueId, runId: run.id, ...(run.conclusionReason ? { reason: run.conclusionReason } : {}) },
    });
  return Object.assign(Object.create(inner) as TestRunRepository, {
    async insert(run: TestRun): Promise<void> {
      await inner.insert(run);
      if (isBatch(run)) await emitBatch(run, 'pull_request_batch.testing', run.createdAt, 0);
    },
    async conclude(...args: Parameters<TestRunRepository['conclude']>): Promise<TestRun | null> {
      const run = await inner.conclude(...args);
      if (run && isBatch(run) && (run.status === 'failed' || run.status === 'cancelled')) {
        await emitBatch(run, run.status === 'failed' ? 'pull_request_batch.failed' : 'pull_request_batch.canceled', run.concludedAt ?? new Date(), 1);
      }
      return run;
    },
  });
}

function emittingQueues(inner: QueueRepository, events: EventEmitter): QueueRepository {
  return Object.assign(Object.create(inner) as QueueRepository, {
    async update(...args: Parameters<QueueRepository['update']>): Promise<Awaited<ReturnType<QueueRepository['update']>>> {
      const [id, , patch] = args;
      // Only a write that sets the state can change it: read the state it replaces then.
      const before = patch.state !== undefined ? await inner.findById(id) : null;
      const queue = await inner.update(...args);
      if (queue && before && before.state !== queue.state) {
        await events.emit({
          orgId: queue.orgId,
          type: 'queue.state_changed',
          orderKey: `queue:${queue.id}`,
          order: { at: queue.updatedAt, version: queue.version },
          subject: { queueId: queue.id, previousState: before.state, state: queue.state },
        });
      }
      return queue;
    },
  });
}

/** `repositories` with events emitted on every transition. */
export function withDomainEvents(repositories: MergeQueueRepositories, events: EventEmitter): MergeQueueRepositories {
  return {
    ...repositories,
    entries: emittingEntries(repositories.entries, repositories.testRuns, events),
    testRuns: emittingTestRuns(repositories.testRuns, events),
    queues: emittingQueues(repositories.queues, events),
  };
}
