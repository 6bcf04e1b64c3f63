// Tests that must read or rewrite stored documents directly (a deadline brought forward, every
// entry a load test created) go through the database, not through a repository: repositories
// offer only the named queries the product uses.
import type { Database, Filter } from '../../shared/platform/database/collection.js';
import type { Entry } from '../../shared/merge-queue/domain/model.js';
import { toEntry, type EntryDoc } from '../../shared/merge-queue/store/entry-repository.js';
import type { TestRunDoc } from '../../shared/merge-queue/store/test-run-repository.js';

export const entryDocuments = (db: Database) => db.collection<EntryDoc>('entries');
export const testRunDocuments = (db: Database) => db.collection<TestRunDoc>('test_runs');

/** Stored entries matching `filter`, in admission order. */
export async function storedEntries(db: Database, filter: Filter<EntryDoc>): Promise<Entry[]> {
  return (await entryDocuments(db).find(filter, { sort: { seq: 1 } })).map(toEntry);
}
