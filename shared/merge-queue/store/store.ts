// All repositories over one database, and the start-up step that creates their indexes.
import type { Database } from '../../database/collection.js';
import { OrgRepository } from '../../accounts/org-repository.js';
import { TokenRepository } from '../../accounts/token-repository.js';
import { QueueRepository } from './queue-repository.js';
import { EntryRepository } from './entry-repository.js';
import { ImpactedTargetsRepository } from './impacted-targets-repository.js';
import { TestRunRepository } from './test-run-repository.js';
import { CommitStatusRepository } from './commit-status-repository.js';

export interface Store {
  db: Database;
  orgs: OrgRepository;
  tokens: TokenRepository;
  queues: QueueRepository;
  entries: EntryRepository;
  impactedTargets: ImpactedTargetsRepository;
  testRuns: TestRunRepository;
  commitStatuses: CommitStatusRepository;
}

export function createStore(db: Database): Store {
  return {
    db,
    orgs: new OrgRepository(db),
    tokens: new TokenRepository(db),
    queues: new QueueRepository(db),
    entries: new EntryRepository(db),
    impactedTargets: new ImpactedTargetsRepository(db),
    testRuns: new TestRunRepository(db),
    commitStatuses: new CommitStatusRepository(db),
  };
}

/** Creates every index (idempotent); run at start-up before serving. */
export async function ensureIndexes(store: Store): Promise<void> {
  await Promise.all([
    store.orgs.ensureIndexes(),
    store.tokens.ensureIndexes(),
    store.queues.ensureIndexes(),
    store.entries.ensureIndexes(),
    store.impactedTargets.ensureIndexes(),
    store.testRuns.ensureIndexes(),
    store.commitStatuses.ensureIndexes(),
  ]);
}
