// A database that exists for one test suite or benchmark: the embedded database in memory, or,
// with a MongoDB URL, a database of its own on that server (a random name, so concurrent runs
// against one server do not collide), dropped when discarded. Dropping is a test concern, so it
// lives here and not in the production Database interface.
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Database } from '../../shared/platform/database/collection.js';
import { openEmbeddedDatabase } from '../../shared/platform/database/embedded/embedded-database.js';
import { openMongoDatabase } from '../../shared/platform/database/mongo-database.js';

export interface ThrowawayDatabase {
  readonly kind: Database['kind'];
  /** The open database; after empty() a new one for the embedded kind. */
  readonly db: Database;
  /** Removes every collection and index: what follows starts from nothing. */
  empty(): Promise<void>;
  /** Removes the database and closes it. */
  discard(): Promise<void>;
}

/** The embedded database in memory without `mongoUrl`; else a fresh database on that server. */
export async function openThrowawayDatabase(mongoUrl?: string): Promise<ThrowawayDatabase> {
  if (!mongoUrl) {
    let db: Database = await openEmbeddedDatabase();
    return {
      kind: 'embedded',
      get db() {
        return db;
      },
      // An in-memory database is emptied by replacing it: nothing else refers to its contents.
      empty: async () => {
        await db.close();
        db = await openEmbeddedDatabase();
      },
      discard: () => db.close(),
    };
  }
  const name = `openmq_test_${randomUUID().slice(0, 8)}`;
  const db = await openMongoDatabase(mongoUrl, name);
  const admin = new MongoClient(mongoUrl);
  await admin.connect();
  const drop = async (): Promise<void> => {
    await admin.db(name).dropDatabase();
  };
  return {
    kind: 'mongodb',
    db,
    empty: drop,
    discard: async () => {
      try {
        await drop();
      } finally {
        await Promise.all([db.close(), admin.close()]);
      }
    },
  };
}
