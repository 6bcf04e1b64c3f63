// Registers one mocha suite per database engine: the embedded engine (in memory) always, and
// MongoDB as well when MONGO_URL is set. Each engine gets its own database, emptied before
// every test, so the same contract runs unchanged against both.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../shared/database/collection.js';
import { openEmbeddedDatabase } from '../../shared/database/embedded/embedded-database.js';
import { openMongoDatabase } from '../../shared/database/mongo-database.js';

export type DatabaseKind = Database['kind'];

interface DatabaseTarget {
  kind: DatabaseKind;
  open(): Promise<Database>;
}

export function databaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [{ kind: 'embedded', open: () => openEmbeddedDatabase() }];
  const mongoUrl = process.env.MONGO_URL;
  if (mongoUrl) {
    // A database of its own per suite, so concurrent runs against one server do not collide.
    targets.push({ kind: 'mongodb', open: () => openMongoDatabase(mongoUrl, `openmq_test_${randomUUID().slice(0, 8)}`) });
  }
  return targets;
}

/**
 * `describe(title [kind])` for every available engine. `fn` registers the tests; `getDb()`
 * returns the open database inside them, and `kind` lets the rare engine-specific assertion
 * (an error message) say which engine it is about.
 */
export function forEachDatabase(title: string, fn: (getDb: () => Database, kind: DatabaseKind) => void): void {
  for (const target of databaseTargets()) {
    describe(`${title} [${target.kind}]`, function () {
      let db: Database | null = null;

      before(async function () {
        db = await target.open();
      });

      beforeEach(async function () {
        await db?.dropAll();
      });

      after(async function () {
        if (!db) return;
        await db.dropAll();
        await db.close();
        db = null;
      });

      fn(() => {
        if (!db) throw new Error(`the ${target.kind} database is not open (use getDb() inside a test or hook)`);
        return db;
      }, target.kind);
    });
  }
}
