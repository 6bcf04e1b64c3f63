// Per-test counters of detection-eligible runs by clock hour and branch: what the monitors, the
// failure rates and list-failing-tests read, so no read ever scans runs. Each upload inserts its
// own counter documents (one per test and hour it touched) — insert-only, so concurrent uploads
// never contend and nothing is read-modified-written; readers sum them. `failKey`
// ("<repoId>|<hour ms>") exists only on documents with failures, so list-failing-tests reads just
// the failing counters of the hours in its window.
//
// Reads of one test's counters "since T" go through `span` ("<caseId>|<week number>"): an equality
// key, so the embedded database (whose planner uses equality only) reads the two or three weeks a
// window touches instead of the test's whole retained history; MongoDB serves it from the
// (span, hour) index.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../database/collection.js';
import type { HourBucket } from '../domain/detection/types.js';

/** One upload's counters for one test, hour and branch: the domain's bucket plus where it belongs. */
export type BucketDelta = HourBucket & {
  /** Unique per document; the writer numbers its documents (`<uploadId>:b<n>`). */
  id: string;
  repoId: string;
  caseId: string;
  uploadId: string;
  /** First passed run (pass-on-retry across uploads pairs it with a failure). */
  firstPassAt: Date | null;
  expiresAt: Date;
};

type BucketDoc = StoredDoc &
  HourBucket & { repoId: string; caseId: string; span: string; uploadId: string; firstPassAt: Date | null; failKey?: string; expiresAt: Date };

export interface FailingBucket {
  caseId: string;
  uploadId: string;
  hour: Date;
  firstFailureAt: Date;
  lastFailureAt: Date;
}

export const BUCKET_INDEXES: IndexSpec[] = [
  { key: { span: 1, hour: 1 }, name: 'span_hour', comment: 'detection evidence, failure rates and PR counts of a set of tests since a time' },
  { key: { uploadId: 1 }, name: 'upload', comment: 'pass-on-retry across uploads: outcomes of earlier uploads of the same commit; dropping an interrupted ingest' },
  { key: { failKey: 1 }, name: 'fail_key', comment: 'list-failing-tests: buckets with failures in the hours of a window' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

const IN_CHUNK = 20;
const SPAN_MS = 7 * 24 * 3_600_000;
const spanOf = (caseId: string, hourMs: number) => `${caseId}|${Math.floor(hourMs / SPAN_MS)}`;

export const failKeyOf = (repoId: string, hour: Date | number) => `${repoId}|${typeof hour === 'number' ? hour : hour.getTime()}`;

const toBucket = (d: BucketDoc): HourBucket & { caseId: string } => ({
  caseId: d.caseId,
  hour: d.hour,
  branch: d.branch,
  branchClass: d.branchClass,
  passed: d.passed,
  failed: d.failed,
  skipped: d.skipped,
  firstFailureAt: d.firstFailureAt ?? null,
  lastFailureAt: d.lastFailureAt ?? null,
  lastRunAt: d.lastRunAt ?? null,
  failedPrs: d.failedPrs ?? [],
});

export class HourBucketRepository {
  private readonly col: DocCollection<BucketDoc>;
  constructor(db: Database) {
    this.col = db.collection<BucketDoc>('flaky_test_hours');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(BUCKET_INDEXES);
  }

  /** Drops the counters an interrupted attempt at processing the upload wrote. */
  async deleteByUpload(uploadId: string): Promise<void> {
    await this.col.deleteMany({ uploadId });
  }

  async insert(deltas: readonly BucketDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const docs: BucketDoc[] = deltas.map((d) => {
      const doc: BucketDoc = {
        _id: d.id,
        repoId: d.repoId,
        caseId: d.caseId,
        span: spanOf(d.caseId, d.hour.getTime()),
        uploadId: d.uploadId,
        hour: d.hour,
        branch: d.branch,
        branchClass: d.branchClass,
        passed: d.passed,
        failed: d.failed,
        skipped: d.skipped,
        firstFailureAt: d.firstFailureAt,
        lastFailureAt: d.lastFailureAt,
        lastRunAt: d.lastRunAt,
        firstPassAt: d.firstPassAt,
        failedPrs: d.failedPrs,
        expiresAt: d.expiresAt,
      };
      if (d.failed > 0) doc.failKey = failKeyOf(d.repoId, d.hour);
      return doc;
    });
    await this.col.insertMany(docs, { ordered: false });
  }

  /** Buckets of these tests in [since, until]; `until` is the caller's now (bounds the spans read). */
  async forCases(caseIds: readonly string[], since: Date, until: Date): Promise<Map<string, HourBucket[]>> {
    const out = new Map<string, HourBucket[]>();
    // Runs may be filed a few minutes ahead of the clock (skew), so the next hour is included.
    const last = until.getTime() + 3_600_000;
    const spans: number[] = [];
    for (let w = Math.floor(since.getTime() / SPAN_MS); w <= Math.floor(last / SPAN_MS); w++) spans.push(w);
    // Small `$in` lists: the embedded database tests the list against every candidate document.
    const perQuery = Math.max(1, Math.floor(IN_CHUNK / Math.max(1, spans.length)));
    for (let i = 0; i < caseIds.length; i += perQuery) {
      const keys = caseIds.slice(i, i + perQuery).flatMap((c) => spans.map((w) => `${c}|${w}`));
      const docs = await this.col.find({ span: { $in: keys }, hour: { $gte: since, $lte: new Date(last) } });
      for (const d of docs) {
        const b = toBucket(d);
        const list = out.get(b.caseId);
        if (list) list.push(b);
        else out.set(b.caseId, [b]);
      }
    }
    return out;
  }

  /** Earliest failed and passed run of these tests in these uploads (pass-on-retry across uploads). */
  async outcomesIn(uploadIds: readonly string[], caseIds: readonly string[]): Promise<{ caseId: string; firstFailureAt: Date | null; firstPassAt: Date | null }[]> {
    if (uploadIds.length === 0 || caseIds.length === 0) return [];
    const docs = await this.col.find(
      { uploadId: { $in: [...uploadIds] }, caseId: { $in: [...caseIds] } },
      { projection: { caseId: 1, firstFailureAt: 1, firstPassAt: 1 } },
    );
    return docs.map((d) => ({ caseId: d.caseId, firstFailureAt: d.firstFailureAt ?? null, firstPassAt: d.firstPassAt ?? null }));
  }

  /** Buckets with failures in the given hours of a repository. */
  async failingIn(repoId: string, hours: readonly number[]): Promise<FailingBucket[]> {
    const out: FailingBucket[] = [];
    // A day of hours per query keeps the `$in` list (tested per candidate by the embedded database) short.
    for (let i = 0; i < hours.length; i += 24) {
      const docs = await this.col.find(
        { failKey: { $in: hours.slice(i, i + 24).map((h) => failKeyOf(repoId, h)) } },
        { projection: { caseId: 1, uploadId: 1, hour: 1, firstFailureAt: 1, lastFailureAt: 1 } },
      );
      for (const d of docs) out.push({ caseId: d.caseId, uploadId: d.uploadId, hour: d.hour, firstFailureAt: d.firstFailureAt as Date, lastFailureAt: d.lastFailureAt as Date });
    }
    return out;
  }
}
