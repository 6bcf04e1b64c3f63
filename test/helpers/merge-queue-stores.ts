// Registers one mocha suite per implementation of the merge queue's repositories: each database
// (as forEachDatabase runs them) and the in-memory repositories that the simulator and the
// services' unit tests stand on. A contract written once holds them all: a fake cannot drift from
// what it stands for.
import { forEachDatabase, type DatabaseKind } from './databases.js';
import { createMergeQueueStore, type MergeQueueRepositories } from '../../shared/merge-queue/store/store.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { inMemoryRepositories } from '../../shared/merge-queue/simulation/in-memory-repositories.js';

export type StoreKind = DatabaseKind | 'in-memory';

export function forEachMergeQueueStore(title: string, fn: (getStore: () => MergeQueueRepositories, kind: StoreKind) => void): void {
  forEachDatabase(title, (getDb, kind) => {
    let store: MergeQueueRepositories | null = null;
    beforeEach(async () => {
      const created = createMergeQueueStore(getDb());
      await ensureIndexes(created);
      store = created;
    });
    fn(() => {
      if (!store) throw new Error('the store is built before each test (use getStore() inside a test)');
      return store;
    }, kind);
  });
  describe(`${title} [in-memory]`, () => {
    let store: MergeQueueRepositories = inMemoryRepositories();
    beforeEach(() => {
      store = inMemoryRepositories();
    });
    fn(() => store, 'in-memory');
  });
}
