// The merge-queue and accounts repositories over one database (indexes: shared/database/ensure-indexes.ts).
// Services depend on the repository interfaces (MergeQueueRepositories), never on a collection:
// unit tests build them over in-memory fakes.
import type { Database } from '../../database/collection.js';
import { DbOrgRepository } from '../../accounts/org-repository.js';
import { DbTokenRepository } from '../../accounts/token-repository.js';
import { DbAuditRepository } from '../../audit/store/audit-log.js';
import { DbQueueRepository, type QueueRepository } from './queue-repository.js';
import { DbEntryRepository, type EntryRepository } from './entry-repository.js';
import { DbImpactedTargetsRepository, type ImpactedTargetsRepository } from './impacted-targets-repository.js';
import { DbTestRunRepository, type TestRunRepository } from './test-run-repository.js';
import { DbCommitStatusRepository, type CommitStatusRepository } from './commit-status-repository.js';
import { QueueRevisions } from './queue-revisions.js';
import { LEAVE_FOR_SWEEP, type EventRelay, type OutboxSource } from '../../events/outbox.js';

/** What the merge-queue services read and write. */
export interface MergeQueueRepositories {
  queues: QueueRepository;
  entries: EntryRepository;
  impactedTargets: ImpactedTargetsRepository;
  testRuns: TestRunRepository;
  commitStatuses: CommitStatusRepository;
}

export interface Store extends MergeQueueRepositories {
  orgs: DbOrgRepository;
  tokens: DbTokenRepository;
  audit: DbAuditRepository;
  queues: DbQueueRepository;
  entries: DbEntryRepository;
  impactedTargets: DbImpactedTargetsRepository;
  testRuns: DbTestRunRepository;
  commitStatuses: DbCommitStatusRepository;
  /** Bumped by the writes that change what getQueue answers (queue-revisions.ts). */
  queueRevisions: QueueRevisions;
}

/**
 * `relay` moves the events the merge-queue repositories write with their state changes on to
 * delivery; without one (scripts, tests of storage alone) they wait in the outboxes for the sweep.
 */
export function createStore(db: Database, relay: EventRelay = LEAVE_FOR_SWEEP): Store {
  const queueRevisions = new QueueRevisions(db);
  const testRuns = new DbTestRunRepository(db, queueRevisions, relay);
  return {
    orgs: new DbOrgRepository(db),
    tokens: new DbTokenRepository(db),
    audit: new DbAuditRepository(db),
    queues: new DbQueueRepository(db, relay),
    entries: new DbEntryRepository(db, queueRevisions, { runs: testRuns, relay }),
    impactedTargets: new DbImpactedTargetsRepository(db),
    testRuns,
    commitStatuses: new DbCommitStatusRepository(db),
    queueRevisions,
  };
}

/** The merge-queue documents that hold outboxes: what the event sweep drains. */
export const outboxSourcesOf = (store: Store): OutboxSource[] => [store.entries.outbox, store.testRuns.outbox, store.queues.outbox];
