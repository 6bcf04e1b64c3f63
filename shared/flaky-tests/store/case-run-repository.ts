// Test case runs (the attempts of JUnit testcases; not the merge queue's test runs): the raw
// record, append-only, expiring after the retention period. Detection, rates and lists read the
// per-upload hour counters, so runs have few readers: the edges of a list-failing-tests window,
// the failed tests of a linked upload, and dropping an interrupted upload.
//
// Runs are stored in blocks: one document per batch of an upload's runs (`<uploadId>:<first
// sequence number>`), the upload's fields once and the runs' fields as columns. A run costs a
// few array slots instead of a document of eighteen fields, its index entries and its journal
// line: a million runs fit in tens of MiB, and ingest writes one document per few hundred runs
// (docs/decisions.md, "Flaky runs and hour counters are stored in blocks").
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { RunOutcome } from '../domain/model.js';
import type { CaseRunRow, CaseRunUpload } from './upload-rows.js';

/** The failure of run `i` of a block (most runs pass, so failures are listed apart). */
interface BlockFailure {
  i: number;
  message: string | null;
  summary: string | null;
  key: string | null;
}

type RunBlockDoc = StoredDoc &
  CaseRunUpload & {
    /** Sequence number of the block's first run; the runs are consecutive. */
    first: number;
    caseIds: string[];
    attempts: number[];
    /** One letter per run: p(assed), f(ailed), s(kipped). */
    outcomes: string;
    durationsMs: (number | null)[];
    /** Run times as milliseconds after `atBase` (small integers, where epoch milliseconds are not). */
    atBase: Date;
    atOffsets: number[];
    failures: BlockFailure[];
    /** The distinct tests with a failed run in the block. */
    failedCaseIds: string[];
  };

const OUTCOME_LETTER: Record<RunOutcome, string> = { passed: 'p', failed: 'f', skipped: 's' };

export const CASE_RUN_INDEXES: IndexSpec[] = [
  {
    key: { uploadId: 1 },
    name: 'upload',
    comment: 'runs of one upload: list-failing-tests window edges, failed tests of linked uploads, dropping an aborted upload',
  },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

export const CASE_RUN_COLLECTION = 'flaky_run_blocks';

export function runBlockOf(upload: CaseRunUpload, runs: readonly CaseRunRow[]): RunBlockDoc {
  const first = runs[0];
  if (!first) throw new Error('a block of runs holds at least one run');
  let atBase = first.at;
  for (const r of runs) atBase = Math.min(atBase, r.at);
  const failures: BlockFailure[] = [];
  const failed = new Set<string>();
  let outcomes = '';
  runs.forEach((r, i) => {
    if (r.seq !== first.seq + i) throw new Error(`runs of a block are consecutive: run ${i} has sequence ${r.seq}, expected ${first.seq + i}`);
    outcomes += OUTCOME_LETTER[r.outcome];
    if (r.outcome === 'failed') failed.add(r.caseId);
    if (r.failureMessage !== null || r.failureSummary !== null || r.failureKey !== null) {
      failures.push({ i, message: r.failureMessage, summary: r.failureSummary, key: r.failureKey });
    }
  });
  return {
    _id: `${upload.uploadId}:${first.seq}`,
    orgId: upload.orgId,
    repoId: upload.repoId,
    uploadId: upload.uploadId,
    sha: upload.sha,
    branch: upload.branch,
    branchClass: upload.branchClass,
    prNumber: upload.prNumber,
    expiresAt: upload.expiresAt,
    first: first.seq,
    caseIds: runs.map((r) => r.caseId),
    attempts: runs.map((r) => r.attempt),
    outcomes,
    durationsMs: runs.map((r) => r.durationMs),
    atBase: new Date(atBase),
    atOffsets: runs.map((r) => r.at - atBase),
    failures,
    failedCaseIds: [...failed],
  };
}

/** The runs of each upload (stored in blocks), as the services see them (DbCaseRunRepository is the database's). */
export interface CaseRunRepository {
  /** Stores consecutive runs of one upload as one block; the same block twice is a duplicate key. */
  insertBatch(upload: CaseRunUpload, runs: readonly CaseRunRow[]): Promise<void>;
  /** Whether this upload holds a failed run of the test in [start, end). */
  failedBetween(uploadId: string, caseId: string, start: Date, end: Date): Promise<boolean>;
  /** The distinct tests that failed at least once in these uploads. */
  failedIn(uploadIds: readonly string[]): Promise<{ caseId: string; testId: string }[]>;
  /**
   * How each of these tests ended in these uploads: `passed` when an attempt passed (a pass on
   * retry included), `failed` when attempts failed and none passed; absent when not run.
   */
  outcomesIn(uploadIds: readonly string[], caseIds: readonly string[]): Promise<Map<string, 'passed' | 'failed'>>;
  deleteByUpload(uploadId: string): Promise<void>;
  countByUpload(uploadId: string): Promise<number>;
}

export class DbCaseRunRepository implements CaseRunRepository {
  private readonly col: DocCollection<RunBlockDoc>;
  constructor(db: Database) {
    this.col = db.collection<RunBlockDoc>(CASE_RUN_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(CASE_RUN_INDEXES);
  }

  /** Stores consecutive runs of one upload as one block; the same block twice is a duplicate key. */
  async insertBatch(upload: CaseRunUpload, runs: readonly CaseRunRow[]): Promise<void> {
    if (runs.length === 0) return;
    await this.col.insertOne(runBlockOf(upload, runs));
  }

  /** Whether this upload holds a failed run of the test in [start, end). */
  async failedBetween(uploadId: string, caseId: string, start: Date, end: Date): Promise<boolean> {
    const blocks = await this.col.find(
      { uploadId, failedCaseIds: caseId },
      { projection: { caseIds: 1, outcomes: 1, atBase: 1, atOffsets: 1 }, readOnly: true },
    );
    const [s, e] = [start.getTime(), end.getTime()];
    return blocks.some((b) =>
      b.caseIds.some((c, i) => {
        if (c !== caseId || b.outcomes[i] !== 'f') return false;
        const at = b.atBase.getTime() + (b.atOffsets[i] as number);
        return at >= s && at < e;
      }),
    );
  }

  /** The distinct tests that failed at least once in these uploads. */
  async failedIn(uploadIds: readonly string[]): Promise<{ caseId: string; testId: string }[]> {
    if (uploadIds.length === 0) return [];
    const blocks = await this.col.find({ uploadId: { $in: [...uploadIds] } }, { projection: { _id: 0, repoId: 1, failedCaseIds: 1 }, readOnly: true });
    const seen = new Map<string, { caseId: string; testId: string }>();
    for (const b of blocks) {
      for (const caseId of b.failedCaseIds) if (!seen.has(caseId)) seen.set(caseId, { caseId, testId: caseId.slice(b.repoId.length + 1) });
    }
    return [...seen.values()];
  }

  async outcomesIn(uploadIds: readonly string[], caseIds: readonly string[]): Promise<Map<string, 'passed' | 'failed'>> {
    const out = new Map<string, 'passed' | 'failed'>();
    if (uploadIds.length === 0 || caseIds.length === 0) return out;
    const wanted = new Set(caseIds);
    const blocks = await this.col.find({ uploadId: { $in: [...uploadIds] } }, { projection: { _id: 0, caseIds: 1, outcomes: 1 }, readOnly: true });
    for (const b of blocks) {
      b.caseIds.forEach((c, i) => {
        if (!wanted.has(c)) return;
        const letter = b.outcomes[i];
        if (letter === 'p') out.set(c, 'passed');
        else if (letter === 'f' && out.get(c) !== 'passed') out.set(c, 'failed');
      });
    }
    return out;
  }

  async deleteByUpload(uploadId: string): Promise<void> {
    await this.col.deleteMany({ uploadId });
  }

  async countByUpload(uploadId: string): Promise<number> {
    const blocks = await this.col.find({ uploadId }, { projection: { _id: 0, caseIds: 1 }, readOnly: true });
    return blocks.reduce((n, b) => n + b.caseIds.length, 0);
  }
}
