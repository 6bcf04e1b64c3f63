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

export function createStore(db: Database): Store {
  const queueRevisions = new QueueRevisions(db);
  return {
    orgs: new DbOrgRepository(db),
    tokens: new DbTokenRepository(db),
    audit: new DbAuditRepository(db),
    queues: new DbQueueRepository(db),
    entries: new DbEntryRepository(db, queueRevisions),
    impactedTargets: new DbImpactedTargetsRepository(db),
    testRuns: new DbTestRunRepository(db, queueRevisions),
    commitStatuses: new DbCommitStatusRepository(db),
    queueRevisions,
  };
}
