// Versioned data migrations: an ordered list, each applied once per database and recorded in
// `schema_migrations` (one document per version, with its name, when and how long). Every process
// calls runMigrations at start; the first to take the migration lock applies what is pending, the
// others wait for it and find nothing left to do. A lock whose holder died (no renewal within its
// lease) is taken over. A database that records a version this release does not know was migrated
// by a newer release: the process refuses to start rather than misread data it does not know.
//
// A migration must be safe to re-run after a crash part-way (it is recorded only once it
// finished), and compatible with the previous release, which may still be running during a
// rolling upgrade.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isDuplicateKeyError, type Database, type StoredDoc } from './collection.js';
import type { Logger } from '../logging.js';

export interface Migration {
  /** 1, 2, 3, …: the order in which migrations apply, never reused. */
  version: number;
  /** What it does, in kebab-case (shown in logs and in the record). */
  name: string;
  up(db: Database, logger: Logger): Promise<void>;
}

export const MIGRATIONS_COLLECTION = 'schema_migrations';
export const MIGRATION_LOCK_COLLECTION = 'schema_migration_lock';
const LOCK_ID = 'migrations';

interface MigrationRecord extends StoredDoc {
  _id: string;
  version: number;
  name: string;
  appliedAt: Date;
  durationMs: number;
}

interface LockDoc extends StoredDoc {
  _id: string;
  owner: string;
  acquiredAt: Date;
  expiresAt: Date;
}

/** The database was migrated by a newer release than this one. */
export class SchemaTooNewError extends Error {}

export interface MigrationOptions {
  logger: Logger;
  /** How long a lock holder may go without renewing before another process takes over. */
  leaseMs?: number;
  /** How long to wait for another process's migrations before giving up. */
  maxWaitMs?: number;
  pollMs?: number;
  /** Names this process in the lock (default: host, pid and a random suffix). */
  owner?: string;
}

export interface MigrationOutcome {
  /** Migrations this process applied, in order. */
  applied: string[];
  /** The database's version afterwards (0: none). */
  version: number;
}

const recordId = (version: number) => `v${String(version).padStart(4, '0')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The modules' migrations as one list, refusing a version used twice, a gap, or a name used twice. */
export function joinMigrations(...parts: readonly (readonly Migration[])[]): Migration[] {
  const all = parts.flat().sort((a, b) => a.version - b.version);
  all.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`migrations must be numbered 1, 2, 3, … without gaps or repeats: found ${m.version} (${m.name}) at position ${i + 1}`);
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(m.name)) throw new Error(`migration ${m.version}: name ${m.name} must be kebab-case`);
  });
  const names = all.map((m) => m.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) throw new Error(`migration names used twice: ${twice.join(', ')}`);
  return all;
}

async function appliedVersions(db: Database): Promise<MigrationRecord[]> {
  return db.collection<MigrationRecord>(MIGRATIONS_COLLECTION).find({}, { sort: { version: 1 } });
}

function refuseNewer(records: readonly MigrationRecord[], known: readonly Migration[]): void {
  const newer = records.filter((r) => r.version > known.length);
  if (newer.length === 0) return;
  const last = newer[newer.length - 1]!;
  throw new SchemaTooNewError(
    `the database's schema is at version ${last.version} (${last.name}), newer than this release knows (${known.length}): it was migrated by a newer release — run that release or a later one`,
  );
}

/** Applies the pending migrations under the lock; see the file's comment. */
export async function runMigrations(db: Database, migrations: readonly Migration[], opts: MigrationOptions): Promise<MigrationOutcome> {
  const { logger } = opts;
  const leaseMs = opts.leaseMs ?? 60_000;
  const maxWaitMs = opts.maxWaitMs ?? 30 * 60_000;
  const pollMs = opts.pollMs ?? 1_000;
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  const before = await appliedVersions(db);
  refuseNewer(before, migrations);
  if (before.length >= migrations.length) return { applied: [], version: before.length };

  const locks = db.collection<LockDoc>(MIGRATION_LOCK_COLLECTION);
  const deadline = Date.now() + maxWaitMs;
  let waitingLogged = 0;
  for (;;) {
    const now = new Date();
    const lock: LockDoc = { _id: LOCK_ID, owner, acquiredAt: now, expiresAt: new Date(now.getTime() + leaseMs) };
    try {
      await locks.insertOne(lock);
      break;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    const taken = await locks.findOneAndUpdate({ _id: LOCK_ID, expiresAt: { $lt: now } }, { $set: { owner, acquiredAt: now, expiresAt: lock.expiresAt } });
    if (taken?.owner === owner) {
      logger.warn('took over the migration lock of a process that stopped renewing it');
      break;
    }
    if (Date.now() > deadline)
      throw new Error(`gave up waiting ${Math.round(maxWaitMs / 1000)} s for another process's migrations (the lock in ${MIGRATION_LOCK_COLLECTION})`);
    if (Date.now() - waitingLogged > 10_000) {
      const holder = await locks.findOne({ _id: LOCK_ID });
      logger.info({ holder: holder?.owner }, 'waiting for another process to finish the migrations');
      waitingLogged = Date.now();
    }
    await sleep(pollMs);
  }

  const renewal = setInterval(
    () => {
      void locks.updateOne({ _id: LOCK_ID, owner }, { $set: { expiresAt: new Date(Date.now() + leaseMs) } }).catch((err: unknown) => {
        logger.warn({ err }, 'could not renew the migration lock');
      });
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  try {
    const records = await appliedVersions(db);
    refuseNewer(records, migrations);
    const done = new Set(records.map((r) => r.version));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      const started = Date.now();
      logger.info({ version: m.version, migration: m.name }, 'applying a migration');
      await m.up(db, logger);
      const durationMs = Date.now() - started;
      await db
        .collection<MigrationRecord>(MIGRATIONS_COLLECTION)
        .insertOne({ _id: recordId(m.version), version: m.version, name: m.name, appliedAt: new Date(), durationMs });
      logger.info({ version: m.version, migration: m.name, durationMs }, 'migration applied');
      applied.push(m.name);
    }
    return { applied, version: migrations.length };
  } finally {
    clearInterval(renewal);
    await locks.deleteOne({ _id: LOCK_ID, owner });
  }
}
