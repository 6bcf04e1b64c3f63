// Per-test counters of detection-eligible runs by clock hour and branch: what the monitors, the
// failure rates and list-failing-tests read, so no read ever scans runs. Each upload inserts its
// own counters — insert-only, so concurrent uploads never contend and nothing is
// read-modified-written; readers sum them.
//
// An upload's counters are stored in blocks: one document per hour and part of the upload (the
// ingest writes its tests in parts of a few hundred), the upload's fields once and each test's
// counters as columns, so a counter costs a few array slots instead of a document
// (docs/decisions.md, "Flaky runs and hour counters are stored in blocks").
//
// Reads of one test's counters "since T" go through `spans` ("<caseId>|<week number>" of each
// row): an equality key, so the embedded database (whose planner uses equality only) reads the
// blocks of the two or three weeks a window touches instead of the test's whole retained
// history; MongoDB serves it from the multikey (spans, hour) index. `failKey` ("<repoId>|<hour
// ms>") exists only on blocks with a failure, so list-failing-tests reads just those.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { BranchClass } from '../domain/branch-class.js';
import type { HourBucket } from '../domain/detection/types.js';
import type { BucketRow, BucketUpload } from './upload-rows.js';

/** Times as milliseconds after the block's hour (small integers), null when there is none. */
type Offsets = (number | null)[];

type BucketBlockDoc = StoredDoc & {
  repoId: string;
  uploadId: string;
  hour: Date;
  branch: string;
  branchClass: BranchClass;
  prNumber: number | null;
  spans: string[];
  passed: number[];
  failed: number[];
  skipped: number[];
  firstFailureAt: Offsets;
  lastFailureAt: Offsets;
  lastRunAt: Offsets;
  firstPassAt: Offsets;
  failKey?: string;
  expiresAt: Date;
};

export interface FailingBucket {
  caseId: string;
  uploadId: string;
  hour: Date;
  firstFailureAt: Date;
  lastFailureAt: Date;
}

export const BUCKET_INDEXES: IndexSpec[] = [
  { key: { spans: 1, hour: 1 }, name: 'spans_hour', comment: 'detection evidence, failure rates and PR counts of a set of tests since a time' },
  {
    key: { uploadId: 1 },
    name: 'upload',
    comment: 'pass-on-retry across uploads: outcomes of earlier uploads of the same commit; dropping an interrupted ingest',
  },
  { key: { failKey: 1 }, name: 'fail_key', comment: 'list-failing-tests: blocks with failures in the hours of a window' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

export const BUCKET_COLLECTION = 'flaky_hour_blocks';

/** Tests per read: the keys of one read are this many tests times the weeks of the window. */
const READ_CHUNK = 500;
const HOUR_MS = 3_600_000;
const SPAN_MS = 7 * 24 * HOUR_MS;
const spanOf = (caseId: string, hourMs: number) => `${caseId}|${Math.floor(hourMs / SPAN_MS)}`;
const caseOfSpan = (span: string) => span.slice(0, span.lastIndexOf('|'));

export const failKeyOf = (repoId: string, hour: Date | number) => `${repoId}|${typeof hour === 'number' ? hour : hour.getTime()}`;

const offset = (at: number | null, hourMs: number) => (at === null ? null : at - hourMs);
const msAt = (offsets: Offsets, i: number, hourMs: number): number | null => {
  const o = offsets[i];
  return o === null || o === undefined ? null : hourMs + o;
};
const timeAt = (offsets: Offsets, i: number, hourMs: number): Date | null => {
  const ms = msAt(offsets, i, hourMs);
  return ms === null ? null : new Date(ms);
};

/** The blocks of one part of an upload: its rows grouped by hour. */
export function bucketBlocksOf(upload: BucketUpload, part: number, rows: readonly BucketRow[]): BucketBlockDoc[] {
  const byHour = new Map<number, BucketRow[]>();
  for (const r of rows) {
    const h = r.hour;
    const list = byHour.get(h);
    if (list) list.push(r);
    else byHour.set(h, [r]);
  }
  return [...byHour].map(([h, list]) => {
    const doc: BucketBlockDoc = {
      _id: `${upload.uploadId}:h${part}:${h}`,
      repoId: upload.repoId,
      uploadId: upload.uploadId,
      hour: new Date(h),
      branch: upload.branch,
      branchClass: upload.branchClass,
      prNumber: upload.prNumber,
      spans: list.map((r) => spanOf(r.caseId, h)),
      passed: list.map((r) => r.passed),
      failed: list.map((r) => r.failed),
      skipped: list.map((r) => r.skipped),
      firstFailureAt: list.map((r) => offset(r.firstFailureAt, h)),
      lastFailureAt: list.map((r) => offset(r.lastFailureAt, h)),
      lastRunAt: list.map((r) => offset(r.lastRunAt, h)),
      firstPassAt: list.map((r) => offset(r.firstPassAt, h)),
      expiresAt: new Date(h + upload.retentionMs),
    };
    if (list.some((r) => r.failed > 0)) doc.failKey = failKeyOf(upload.repoId, h);
    return doc;
  });
}

function bucketAt(block: BucketBlockDoc, i: number): HourBucket {
  const h = block.hour.getTime();
  const failed = block.failed[i] as number;
  return {
    hour: block.hour,
    branch: block.branch,
    branchClass: block.branchClass,
    passed: block.passed[i] as number,
    failed,
    skipped: block.skipped[i] as number,
    firstFailureAt: timeAt(block.firstFailureAt, i, h),
    lastFailureAt: timeAt(block.lastFailureAt, i, h),
    lastRunAt: timeAt(block.lastRunAt, i, h),
    failedPrs: failed > 0 && block.prNumber !== null ? [block.prNumber] : [],
  };
}

/** Each test's hour counters (stored in blocks), as the services see them (DbHourBucketRepository is the database's). */
export interface HourBucketRepository {
  /** Drops the counters an interrupted attempt at processing the upload wrote. */
  deleteByUpload(uploadId: string): Promise<void>;
  /** Stores one part of an upload's counters (numbered by the writer: the same part twice is a duplicate key). */
  insert(upload: BucketUpload, part: number, rows: readonly BucketRow[]): Promise<void>;
  /** Buckets of these tests in [since, until]; `until` is the caller's now (bounds the spans read). */
  forCases(caseIds: readonly string[], since: Date, until: Date): Promise<Map<string, HourBucket[]>>;
  /** Earliest failed and passed run (epoch ms) of these tests in these uploads (pass-on-retry across uploads). */
  outcomesIn(
    uploadIds: readonly string[],
    caseIds: readonly string[],
  ): Promise<{ caseId: string; firstFailureAt: number | null; firstPassAt: number | null }[]>;
  /** Counters with failures in the given hours of a repository. */
  failingIn(repoId: string, hours: readonly number[]): Promise<FailingBucket[]>;
}

export class DbHourBucketRepository implements HourBucketRepository {
  private readonly col: DocCollection<BucketBlockDoc>;
  constructor(db: Database) {
    this.col = db.collection<BucketBlockDoc>(BUCKET_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(BUCKET_INDEXES);
  }

  /** Drops the counters an interrupted attempt at processing the upload wrote. */
  async deleteByUpload(uploadId: string): Promise<void> {
    await this.col.deleteMany({ uploadId });
  }

  /** Stores one part of an upload's counters (numbered by the writer: the same part twice is a duplicate key). */
  async insert(upload: BucketUpload, part: number, rows: readonly BucketRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.col.insertMany(bucketBlocksOf(upload, part, rows), { ordered: false });
  }

  /** Buckets of these tests in [since, until]; `until` is the caller's now (bounds the spans read). */
  async forCases(caseIds: readonly string[], since: Date, until: Date): Promise<Map<string, HourBucket[]>> {
    const out = new Map<string, HourBucket[]>();
    // Runs may be filed a few minutes ahead of the clock (skew), so the next hour is included.
    const last = until.getTime() + HOUR_MS;
    const weeks: number[] = [];
    for (let w = Math.floor(since.getTime() / SPAN_MS); w <= Math.floor(last / SPAN_MS); w++) weeks.push(w);
    for (let i = 0; i < caseIds.length; i += READ_CHUNK) {
      const keys = caseIds.slice(i, i + READ_CHUNK).flatMap((c) => weeks.map((w) => `${c}|${w}`));
      const wanted = new Set(keys);
      const blocks = await this.col.find({ spans: { $in: keys }, hour: { $gte: since, $lte: new Date(last) } }, { readOnly: true });
      for (const block of blocks) {
        block.spans.forEach((span, row) => {
          if (!wanted.has(span)) return;
          const caseId = caseOfSpan(span);
          const bucket = bucketAt(block, row);
          const list = out.get(caseId);
          if (list) list.push(bucket);
          else out.set(caseId, [bucket]);
        });
      }
    }
    return out;
  }

  /** Earliest failed and passed run (epoch ms) of these tests in these uploads (pass-on-retry across uploads). */
  async outcomesIn(
    uploadIds: readonly string[],
    caseIds: readonly string[],
  ): Promise<{ caseId: string; firstFailureAt: number | null; firstPassAt: number | null }[]> {
    if (uploadIds.length === 0 || caseIds.length === 0) return [];
    const wanted = new Set(caseIds);
    const blocks = await this.col.find(
      { uploadId: { $in: [...uploadIds] } },
      { projection: { hour: 1, spans: 1, firstFailureAt: 1, firstPassAt: 1 }, readOnly: true },
    );
    const out: { caseId: string; firstFailureAt: number | null; firstPassAt: number | null }[] = [];
    for (const block of blocks) {
      const h = block.hour.getTime();
      block.spans.forEach((span, row) => {
        const caseId = caseOfSpan(span);
        if (wanted.has(caseId)) out.push({ caseId, firstFailureAt: msAt(block.firstFailureAt, row, h), firstPassAt: msAt(block.firstPassAt, row, h) });
      });
    }
    return out;
  }

  /** Counters with failures in the given hours of a repository. */
  async failingIn(repoId: string, hours: readonly number[]): Promise<FailingBucket[]> {
    const out: FailingBucket[] = [];
    // A week of hours per read keeps each answer modest.
    for (let i = 0; i < hours.length; i += 168) {
      const blocks = await this.col.find(
        { failKey: { $in: hours.slice(i, i + 168).map((h) => failKeyOf(repoId, h)) } },
        { projection: { uploadId: 1, hour: 1, spans: 1, failed: 1, firstFailureAt: 1, lastFailureAt: 1 }, readOnly: true },
      );
      for (const block of blocks) {
        const h = block.hour.getTime();
        block.failed.forEach((failed, row) => {
          if (failed === 0) return;
          out.push({
            caseId: caseOfSpan(block.spans[row] as string),
            uploadId: block.uploadId,
            hour: block.hour,
            firstFailureAt: timeAt(block.firstFailureAt, row, h) as Date,
            lastFailureAt: timeAt(block.lastFailureAt, row, h) as Date,
          });
        });
      }
    }
    return out;
  }
}
