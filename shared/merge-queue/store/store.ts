// The merge-queue repositories over one database (indexes: shared/platform/database/ensure-indexes.ts).
// Services depend on the repository interfaces (MergeQueueRepositories), never on a collection:
// unit tests build them over in-memory fakes.
import type { Database } from '../../platform/database/collection.js';
import { DbQueueRepository, type QueueRepository } from './queue-repository.js';
import { DbEntryRepository, type EntryRepository } from './entry-repository.js';
import { DbImpactedTargetsRepository, type ImpactedTargetsRepository } from './impacted-targets-repository.js';
import { DbTestRunRepository, type TestRunRepository } from './test-run-repository.js';
import { DbCommitStatusRepository, type CommitStatusRepository } from './commit-status-repository.js';
import { DbQueueRevisions, type QueueRevisions } from './queue-revisions.js';
import { DbResourceIdRepository } from './resource-id-repository.js';
import { LEAVE_FOR_SWEEP, type EventRelay, type OutboxSource } from '../../platform/events/outbox.js';

/** What the merge-queue services read and write. */
export interface MergeQueueRepositories {
  queues: QueueRepository;
  entries: EntryRepository;
  impactedTargets: ImpactedTargetsRepository;
  testRuns: TestRunRepository;
  commitStatuses: CommitStatusRepository;
}

export interface MergeQueueStore extends MergeQueueRepositories {
  queues: DbQueueRepository;
  entries: DbEntryRepository;
  impactedTargets: DbImpactedTargetsRepository;
  testRuns: DbTestRunRepository;
  commitStatuses: DbCommitStatusRepository;
  /** Bumped by the writes that change what getQueue answers (queue-revisions.ts). */
  queueRevisions: QueueRevisions;
  /** What the v2 API's repository and pull-request ids name. */
  resourceIds: DbResourceIdRepository;
}

/**
 * `relay` moves the events the merge-queue repositories write with their state changes on to
 * delivery; without one (scripts, tests of storage alone) they wait in the outboxes for the sweep.
 */
export function createMergeQueueStore(db: Database, relay: EventRelay = LEAVE_FOR_SWEEP): MergeQueueStore {
  const queueRevisions = new DbQueueRevisions(db);
  const testRuns = new DbTestRunRepository(db, queueRevisions, relay);
  return {
    queues: new DbQueueRepository(db, relay),
    entries: new DbEntryRepository(db, queueRevisions, { runs: testRuns, relay }),
    impactedTargets: new DbImpactedTargetsRepository(db),
    testRuns,
    commitStatuses: new DbCommitStatusRepository(db),
    queueRevisions,
    resourceIds: new DbResourceIdRepository(db),
  };
}

/** The merge-queue documents that hold outboxes: what the event sweep drains. */
export const outboxSourcesOf = (store: MergeQueueStore): OutboxSource[] => [store.entries.outbox, store.testRuns.outbox, store.queues.outbox];
