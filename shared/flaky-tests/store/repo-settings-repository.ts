// Flaky-tests repositories: one document per (organisation, repository) holding the detection
// configuration, the quarantine settings and the ticket template. Created by the first upload or
// the first settings change; every change is a compare-and-set on `version` with an audit entry.
import { randomUUID } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { repoKey } from '../../platform/repo-ref.js';
import { defaultDetectionConfig, type DetectionConfig } from '../domain/detection/config.js';
import { DEFAULT_QUARANTINE_SETTINGS } from '../domain/detection/quarantine.js';
import type { FlakyRepo, SettingsAudit } from '../domain/model.js';

/** `dueAt` when nothing is due: a date rather than null, so `$min` can lower it. */
export const NEVER_DUE = new Date('9999-12-31T00:00:00.000Z');

type FlakyRepoDoc = StoredDoc & Omit<FlakyRepo, 'id'> & { repoKey: string };

const HISTORY_LIMIT = 200;

export const FLAKY_REPO_INDEXES: IndexSpec[] = [
  {
    key: { orgId: 1, repoKey: 1 },
    name: 'org_repo_unique',
    unique: true,
    comment: 'one flaky-tests repository per (organisation, repository); every request resolves it',
  },
  { key: { dueAt: 1 }, name: 'due_at', comment: 'flaky-refresh: repositories where a status may change by time alone' },
];

const toRepo = (d: FlakyRepoDoc): FlakyRepo => {
  const { _id, repoKey: _key, ...rest } = d;
  // Quarantine settings added later (releaseAfterCleanDays) read as their defaults on older repositories.
  return { ...rest, quarantine: { ...DEFAULT_QUARANTINE_SETTINGS, ...d.quarantine }, id: _id, dueAt: d.dueAt instanceof Date ? d.dueAt : new Date(0) };
};

export type SettingsPatch = Partial<Pick<FlakyRepo, 'quarantine' | 'detection' | 'ticketUrlTemplate'>>;

/** Flaky-tests repositories with their settings, as the services see them (DbFlakyRepoRepository is the database's). */
export interface FlakyRepoRepository {
  find(orgId: string, repo: RepoRef): Promise<FlakyRepo | null>;
  findById(id: string): Promise<FlakyRepo | null>;
  /** The repository, created with default settings if needed (safe under races). */
  ensure(orgId: string, repo: RepoRef, now?: Date, detection?: DetectionConfig): Promise<FlakyRepo>;
  /** Repositories with quarantining on (the flaky-refresh job applies expiries and releases there). */
  withQuarantineEnabled(): Promise<FlakyRepo[]>;
  /** Repositories where some test's status may change by time alone by `now`. */
  dueBy(now: Date, limit: number): Promise<FlakyRepo[]>;
  /** Some test may be due at `at`: lowers the repository's due mark. */
  lowerDueAt(id: string, at: Date): Promise<void>;
  /** After a refresh: raises the due mark to `next`, unless someone lowered it meanwhile. */
  raiseDueAt(id: string, expected: Date, next: Date): Promise<void>;
  /** Compare-and-set of settings; null when another writer changed them first. */
  update(id: string, expectedVersion: number, patch: SettingsPatch, audit: SettingsAudit): Promise<FlakyRepo | null>;
}

export class DbFlakyRepoRepository implements FlakyRepoRepository {
  private readonly col: DocCollection<FlakyRepoDoc>;
  constructor(db: Database) {
    this.col = db.collection<FlakyRepoDoc>('flaky_repos');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(FLAKY_REPO_INDEXES);
  }

  async find(orgId: string, repo: RepoRef): Promise<FlakyRepo | null> {
    const d = await this.col.findOne({ orgId, repoKey: repoKey(repo) });
    return d ? toRepo(d) : null;
  }

  async findById(id: string): Promise<FlakyRepo | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toRepo(d) : null;
  }

  /** The repository, created with default settings if needed (safe under races). */
  async ensure(orgId: string, repo: RepoRef, now = new Date(), detection: DetectionConfig = defaultDetectionConfig()): Promise<FlakyRepo> {
    const existing = await this.find(orgId, repo);
    if (existing) return existing;
    const doc: FlakyRepoDoc = {
      _id: randomUUID(),
      orgId,
      repoKey: repoKey(repo),
      repo: { host: repo.host, owner: repo.owner, name: repo.name },
      quarantine: { ...DEFAULT_QUARANTINE_SETTINGS },
      detection,
      ticketUrlTemplate: null,
      createdAt: now,
      updatedAt: now,
      version: 1,
      history: [{ at: now, actor: 'system', change: 'created with default settings', reason: null }],
      dueAt: NEVER_DUE,
    };
    try {
      await this.col.insertOne(doc);
      return toRepo(doc);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const raced = await this.find(orgId, repo);
      if (!raced) throw err;
      return raced;
    }
  }

  /** Repositories with quarantining on (the flaky-refresh job applies expiries and releases there). */
  async withQuarantineEnabled(): Promise<FlakyRepo[]> {
    return (await this.col.find({ 'quarantine.enabled': true })).map(toRepo);
  }

  /** Repositories where some test's status may change by time alone by `now`. */
  async dueBy(now: Date, limit: number): Promise<FlakyRepo[]> {
    const docs = await this.col.find({ dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
    return docs.map(toRepo);
  }

  /** Some test may be due at `at`: lowers the repository's due mark. */
  async lowerDueAt(id: string, at: Date): Promise<void> {
    await this.col.updateOne({ _id: id }, { $min: { dueAt: at } });
  }

  /** After a refresh: raises the due mark to `next`, unless someone lowered it meanwhile. */
  async raiseDueAt(id: string, expected: Date, next: Date): Promise<void> {
    // A document written before the mark existed has none: treat it as "due now".
    await this.col.updateOne({ _id: id, $or: [{ dueAt: expected }, { dueAt: { $exists: false } }] }, { $set: { dueAt: next } });
  }

  /** Compare-and-set of settings; null when another writer changed them first. */
  async update(id: string, expectedVersion: number, patch: SettingsPatch, audit: SettingsAudit): Promise<FlakyRepo | null> {
    const d = await this.col.findOneAndUpdate(
      { _id: id, version: expectedVersion },
      {
        $set: { ...patch, updatedAt: audit.at },
        $inc: { version: 1 },
        $push: { history: { $each: [audit], $slice: -HISTORY_LIMIT } },
      },
    );
    return d ? toRepo(d) : null;
  }
}
