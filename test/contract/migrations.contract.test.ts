// The migration runner against every database: each migration applied once and recorded, in
// order; several processes at once apply it once between them; a dead holder's lock is taken
// over; a failed migration is not recorded and runs again next time; a newer schema is refused.
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import type { Database, StoredDoc } from '../../shared/platform/database/collection.js';
import {
  joinMigrations,
  MIGRATION_LOCK_COLLECTION,
  MIGRATIONS_COLLECTION,
  runMigrations,
  SchemaTooNewError,
  type Migration,
} from '../../shared/platform/database/migrations.js';
import { createLogger } from '../../shared/platform/logging.js';

const logger = createLogger('silent');
const FAST = { logger, leaseMs: 300, pollMs: 20, maxWaitMs: 10_000 };

interface Applied extends StoredDoc {
  _id: string;
  by: string;
}

/** A migration that leaves a mark of each application, slowly enough for runs to overlap. */
function marking(version: number, name: string, delayMs = 30): Migration {
  return {
    version,
    name,
    async up(db: Database) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await db.collection<Applied>('marks').insertOne({ _id: `${name}:${Math.random()}`, by: name });
    },
  };
}

const marks = async (db: Database) => (await db.collection<Applied>('marks').find({}, { sort: { by: 1 } })).map((m) => m.by);
const records = async (db: Database) =>
  (await db.collection<StoredDoc & { version: number; name: string }>(MIGRATIONS_COLLECTION).find({}, { sort: { version: 1 } })).map((r) => [
    r.version,
    r.name,
  ]);

forEachDatabase('migrations', (getDb) => {
  const two = joinMigrations([marking(1, 'first'), marking(2, 'second')]);

  it('applies pending migrations in order, records each, and applies none a second time', async () => {
    const db = getDb();
    expect(await runMigrations(db, two.slice(0, 1), FAST)).to.deep.equal({ applied: ['first'], version: 1 });
    expect(await runMigrations(db, two, FAST)).to.deep.equal({ applied: ['second'], version: 2 });
    expect(await runMigrations(db, two, FAST)).to.deep.equal({ applied: [], version: 2 });
    expect(await marks(db)).to.deep.equal(['first', 'second']);
    expect(await records(db)).to.deep.equal([
      [1, 'first'],
      [2, 'second'],
    ]);
    expect(await db.collection(MIGRATION_LOCK_COLLECTION).countDocuments({})).to.equal(0);
  });

  it('three processes starting at once apply each migration once between them', async () => {
    const db = getDb();
    const outcomes = await Promise.all(['a', 'b', 'c'].map((owner) => runMigrations(db, two, { ...FAST, owner })));
    expect(outcomes.flatMap((o) => o.applied).sort()).to.deep.equal(['first', 'second']);
    expect(outcomes.every((o) => o.version === 2)).to.equal(true);
    expect(await marks(db)).to.deep.equal(['first', 'second']);
  });

  it('waits for a live holder, and takes over the lock of one that stopped renewing it', async () => {
    const db = getDb();
    const locks = db.collection<StoredDoc & { owner: string; expiresAt: Date }>(MIGRATION_LOCK_COLLECTION);
    // A holder that died: its lease ran out.
    await locks.insertOne({ _id: 'migrations', owner: 'dead', acquiredAt: new Date(0), expiresAt: new Date(Date.now() - 1) });
    expect((await runMigrations(db, two, FAST)).applied).to.deep.equal(['first', 'second']);

    // A live holder: the second process waits until it is done, then finds nothing to do.
    const slow = joinMigrations([...two, marking(3, 'third', 400)]);
    const [holder, waiter] = await Promise.all([
      runMigrations(db, slow, { ...FAST, owner: 'holder' }),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => runMigrations(db, slow, { ...FAST, owner: 'waiter' })),
    ]);
    expect(holder.applied).to.deep.equal(['third']);
    expect(waiter.applied).to.deep.equal([]);
    expect(await marks(db)).to.deep.equal(['first', 'second', 'third']);
  });

  it('records nothing of a migration that failed, releases the lock, and applies it next time', async () => {
    const db = getDb();
    let fail = true;
    const flaky: Migration = {
      version: 2,
      name: 'second',
      async up(d) {
        if (fail) throw new Error('disk full');
        await d.collection<Applied>('marks').insertOne({ _id: 'second', by: 'second' });
      },
    };
    const list = joinMigrations([marking(1, 'first'), flaky]);
    await runMigrations(db, list, FAST).then(
      () => expect.fail('the failure should surface'),
      (err: Error) => expect(err.message).to.equal('disk full'),
    );
    expect(await records(db)).to.deep.equal([[1, 'first']]);
    expect(await db.collection(MIGRATION_LOCK_COLLECTION).countDocuments({})).to.equal(0);
    fail = false;
    expect((await runMigrations(db, list, FAST)).applied).to.deep.equal(['second']);
  });

  it('refuses a database a newer release migrated, naming both versions', async () => {
    const db = getDb();
    await runMigrations(db, joinMigrations([...two, marking(3, 'added-later')]), FAST);
    const refused = await runMigrations(db, two, FAST).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(SchemaTooNewError);
    expect((refused as Error).message).to.equal(
      "the database's schema is at version 3 (added-later), newer than this release knows (2): it was migrated by a newer release — run that release or a later one",
    );
  });
});

describe('joining migrations', () => {
  it('refuses gaps, a version used twice, names used twice and names that are not kebab-case', () => {
    expect(() => joinMigrations([marking(1, 'a'), marking(3, 'c')])).to.throw(/without gaps or repeats: found 3/);
    expect(() => joinMigrations([marking(1, 'a')], [marking(1, 'b')])).to.throw(/found 1 \(b\) at position 2|found 1 \(a\) at position 2/);
    expect(() => joinMigrations([marking(1, 'a'), marking(2, 'a')])).to.throw(/names used twice: a/);
    expect(() => joinMigrations([marking(1, 'Not_Kebab')])).to.throw(/must be kebab-case/);
    expect(joinMigrations([marking(2, 'b')], [marking(1, 'a')]).map((m) => m.name)).to.deep.equal(['a', 'b']);
  });
});
