// A Database decorator that times every collection operation, so operators see database latency
// per collection and operation whichever database (MongoDB or embedded) serves the process. The
// repositories and the databases stay unaware of metrics.
import type { Counter, Histogram } from 'prom-client';
import type { Database, DocCollection, StoredDoc } from '../database/collection.js';
import { isDuplicateKeyError } from '../database/collection.js';

export interface DatabaseInstruments {
  dbDuration: Histogram<'collection' | 'operation'>;
  dbErrors: Counter<'collection' | 'operation'>;
}

/** Every DocCollection method that talks to the database (everything but `name`). */
const OPERATIONS = [
  'insertOne',
  'insertMany',
  'findOne',
  'find',
  'findOneAndUpdate',
  'updateOne',
  'updateMany',
  'deleteOne',
  'deleteMany',
  'countDocuments',
  'aggregate',
  'bulkWrite',
  'createIndexes',
] as const satisfies readonly Exclude<keyof DocCollection<StoredDoc>, 'name'>[];

type Operation = (typeof OPERATIONS)[number];

function instrumentCollection<T extends StoredDoc>(inner: DocCollection<T>, m: DatabaseInstruments): DocCollection<T> {
  // Each method keeps its exact signature; only the call is wrapped in a timer.
  const wrap = <K extends Operation>(operation: K): DocCollection<T>[K] => {
    const call = inner[operation] as unknown as (...args: unknown[]) => Promise<unknown>;
    const timed = async (...args: unknown[]): Promise<unknown> => {
      const labels = { collection: inner.name, operation };
      const end = m.dbDuration.startTimer(labels);
      try {
        return await call.apply(inner, args);
      } catch (err) {
        if (!isDuplicateKeyError(err)) m.dbErrors.inc(labels);
        throw err;
      } finally {
        end();
      }
    };
    return timed as unknown as DocCollection<T>[K];
  };
  const wrapped = Object.fromEntries(OPERATIONS.map((op) => [op, wrap(op)])) as Pick<DocCollection<T>, Operation>;
  return { ...wrapped, name: inner.name };
}

/** Wraps `db` so that every collection it hands out is timed; one wrapper per collection name. */
export function instrumentDatabase(db: Database, m: DatabaseInstruments): Database {
  const collections = new Map<string, DocCollection<StoredDoc>>();
  return {
    get kind() {
      return db.kind;
    },
    collection<T extends StoredDoc>(name: string): DocCollection<T> {
      let col = collections.get(name);
      if (!col) {
        col = instrumentCollection(db.collection<StoredDoc>(name), m);
        collections.set(name, col);
      }
      return col as unknown as DocCollection<T>;
    },
    ping: () => db.ping(),
    close: () => db.close(),
  };
}
