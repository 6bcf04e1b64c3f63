// Runs and hour counters written by versions before blocks (one document per run in
// `flaky_runs`, one per test, hour and upload in `flaky_test_hours`) are moved into blocks by the
// first two migrations (flaky-migrations.ts), one upload at a time: its blocks are inserted, then
// its old documents deleted.
//
// Block ids depend only on the old ids (sequence numbers and counter numbers are cut at fixed
// boundaries), so a move interrupted by a crash, or run by two processes at once, inserts the
// same blocks again: those inserts are refused as duplicates and ignored, and nothing is counted
// twice.
import { isDuplicateKeyError, type Database, type DocCollection, type StoredDoc } from '../../platform/database/collection.js';
import type { HourBucket } from '../domain/detection/types.js';
import type { RunOutcome } from '../domain/model.js';
import type { BucketRow, BucketUpload, CaseRunRow, CaseRunUpload } from './upload-rows.js';

export const LEGACY_RUNS = 'flaky_runs';
export const LEGACY_COUNTERS = 'flaky_test_hours';
/** Runs per block when moving: blocks start at multiples of this sequence number. */
export const LEGACY_RUN_BLOCK = 500;
/** Counters per part when moving: parts start at multiples of this counter number. */
export const LEGACY_COUNTER_PART = 100;

type LegacyRunDoc = StoredDoc &
  CaseRunUpload & {
    caseId: string;
    attempt: number;
    outcome: RunOutcome;
    durationMs: number | null;
    at: Date;
    failureMessage: string | null;
    failureSummary: string | null;
    failureKey: string | null;
  };

type LegacyCounterDoc = StoredDoc &
  HourBucket & {
    caseId: string;
    repoId: string;
    uploadId: string;
    firstPassAt: Date | null;
    expiresAt: Date;
  };

/** The number after the last `:` or `:b` of an old id (`<uploadId>:<seq>`, `<uploadId>:b<n>`). */
function numberOf(id: unknown): number {
  const text = String(id);
  const n = Number(text.slice(text.lastIndexOf(':') + 1).replace(/^b/, ''));
  if (!Number.isInteger(n) || n < 0) throw new Error(`embedded store: unexpected id ${text} in an earlier version's flaky records`);
  return n;
}

async function insertIgnoringDuplicates(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** Moves every upload's documents of an old collection, one upload at a time. */
async function moveByUpload<T extends StoredDoc & { uploadId: string }>(legacy: DocCollection<T>, move: (docs: T[]) => Promise<void>): Promise<number> {
  let moved = 0;
  for (let next = await legacy.findOne({}); next !== null; next = await legacy.findOne({})) {
    const uploadId = next.uploadId;
    const docs = await legacy.find({ uploadId } as Parameters<DocCollection<T>['find']>[0]);
    await move(docs);
    await legacy.deleteMany({ uploadId } as Parameters<DocCollection<T>['deleteMany']>[0]);
    moved += docs.length;
  }
  return moved;
}

/** Moves old per-run documents into blocks; answers how many runs were moved. */
export async function moveLegacyRuns(db: Database, insertBatch: (upload: CaseRunUpload, runs: CaseRunRow[]) => Promise<void>): Promise<number> {
  return moveByUpload(db.collection<LegacyRunDoc>(LEGACY_RUNS), async (docs) => {
    const blocks = new Map<number, CaseRunRow[]>();
    for (const d of docs) {
      const seq = numberOf(d._id);
      const start = seq - (seq % LEGACY_RUN_BLOCK);
      const row: CaseRunRow = {
        seq,
        caseId: d.caseId,
        attempt: d.attempt,
        outcome: d.outcome,
        durationMs: d.durationMs ?? null,
        at: d.at.getTime(),
        failureMessage: d.failureMessage ?? null,
        failureSummary: d.failureSummary ?? null,
        failureKey: d.failureKey ?? null,
      };
      blocks.set(start, [...(blocks.get(start) ?? []), row]);
    }
    const first = docs[0];
    if (!first) return;
    const upload: CaseRunUpload = {
      orgId: first.orgId,
      repoId: first.repoId,
      uploadId: first.uploadId,
      sha: first.sha,
      branch: first.branch,
      branchClass: first.branchClass,
      prNumber: first.prNumber ?? null,
      expiresAt: first.expiresAt,
    };
    for (const rows of blocks.values()) {
      rows.sort((a, b) => a.seq - b.seq);
      // A block holds consecutive runs: a gap (a run lost to an old crash) starts another one.
      let from = 0;
      for (let i = 1; i <= rows.length; i++) {
        if (i === rows.length || (rows[i] as CaseRunRow).seq !== (rows[i - 1] as CaseRunRow).seq + 1) {
          const part = rows.slice(from, i);
          await insertIgnoringDuplicates(() => insertBatch(upload, part));
          from = i;
        }
      }
    }
  });
}

/** Moves old per-counter documents into blocks; answers how many counters were moved. */
export async function moveLegacyCounters(db: Database, insert: (upload: BucketUpload, part: number, rows: BucketRow[]) => Promise<void>): Promise<number> {
  return moveByUpload(db.collection<LegacyCounterDoc>(LEGACY_COUNTERS), async (docs) => {
    const first = docs[0];
    if (!first) return;
    const parts = new Map<number, BucketRow[]>();
    for (const d of docs) {
      const part = Math.floor(numberOf(d._id) / LEGACY_COUNTER_PART);
      const row: BucketRow = {
        caseId: d.caseId,
        hour: d.hour.getTime(),
        passed: d.passed,
        failed: d.failed,
        skipped: d.skipped,
        firstFailureAt: d.firstFailureAt?.getTime() ?? null,
        lastFailureAt: d.lastFailureAt?.getTime() ?? null,
        lastRunAt: d.lastRunAt?.getTime() ?? null,
        firstPassAt: d.firstPassAt?.getTime() ?? null,
      };
      parts.set(part, [...(parts.get(part) ?? []), row]);
    }
    const upload: BucketUpload = {
      repoId: first.repoId,
      uploadId: first.uploadId,
      branch: first.branch,
      branchClass: first.branchClass,
      // A failing counter listed the upload's pull request.
      prNumber: docs.find((d) => (d.failedPrs ?? []).length > 0)?.failedPrs[0] ?? null,
      retentionMs: first.expiresAt.getTime() - first.hour.getTime(),
    };
    for (const [part, rows] of parts) await insertIgnoringDuplicates(() => insert(upload, part, rows));
  });
}
