// Registers one mocha suite per database: the embedded database (in memory) always, and MongoDB
// as well when MONGO_URL is set. Each gets a database of its own, emptied before every test and
// dropped at the end, so the same contract runs unchanged against both.
import type { Database } from '../../shared/platform/database/collection.js';
import { openThrowawayDatabase, type ThrowawayDatabase } from '../../scripts/lib/throwaway-database.js';

export type DatabaseKind = Database['kind'];

/** The kinds this run covers: the embedded database, and MongoDB when MONGO_URL is set. */
function databaseKinds(): DatabaseKind[] {
  return process.env.MONGO_URL ? ['embedded', 'mongodb'] : ['embedded'];
}

/**
 * `describe(title [kind])` for every available database. `fn` registers the tests; `getDb()`
 * returns the open database inside them, and `kind` lets the rare database-specific assertion
 * (an error message) say which one it is about.
 */
export function forEachDatabase(title: string, fn: (getDb: () => Database, kind: DatabaseKind) => void): void {
  for (const kind of databaseKinds()) {
    describe(`${title} [${kind}]`, function () {
      let target: ThrowawayDatabase | null = null;

      before(async function () {
        target = await openThrowawayDatabase(kind === 'mongodb' ? process.env.MONGO_URL : undefined);
      });

      beforeEach(async function () {
        await target?.empty();
      });

      after(async function () {
        await target?.discard();
        target = null;
      });

      fn(() => {
        if (!target) throw new Error(`the ${kind} database is not open (use getDb() inside a test or hook)`);
        return target.db;
      }, kind);
    });
  }
}
