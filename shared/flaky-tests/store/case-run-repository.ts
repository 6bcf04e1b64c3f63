// Test case runs (the attempts of JUnit testcases; not the merge queue's test runs): append-only,
// one document per attempt (notes §6.2), keyed by (upload id, index), expiring after the retention
// period. They are the raw record: detection, rates and lists read the per-upload hour counters,
// so runs carry only the indexes their few readers need (the embedded database keeps every index
// in memory, and runs are the largest collection). Whether a run counts is its upload's business
// (complete and not excluded), so finishing an upload rewrites no run.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../database/collection.js';
import type { BranchClass } from '../domain/branch-class.js';
import type { JUnitOutcome } from '../formats/junit/types.js';

export interface StoredCaseRun {
  /** `<uploadId>:<sequence>`. */
  id: string;
  orgId: string;
  repoId: string;
  caseId: string;
  testId: string;
  uploadId: string;
  sha: string;
  branch: string;
  branchClass: BranchClass;
  prNumber: number | null;
  /** 0-based attempt of this test within the upload (retries in the report, attempt files). */
  attempt: number;
  outcome: JUnitOutcome;
  durationMs: number | null;
  /** When the run happened (see domain run-time rules). */
  at: Date;
  /** First lines of the failure (message, else text), at most 4 KiB; null unless failed. */
  failureMessage: string | null;
  failureSummary: string | null;
  /** Cluster key of the normalised summary (failure-summary.ts). */
  failureKey: string | null;
  expiresAt: Date;
}

type CaseRunDoc = StoredDoc & Omit<StoredCaseRun, 'id'>;

export const CASE_RUN_INDEXES: IndexSpec[] = [
  { key: { uploadId: 1 }, name: 'upload', comment: 'runs of one upload: list-failing-tests window edges, dropping an aborted upload' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

export class CaseRunRepository {
  private readonly col: DocCollection<CaseRunDoc>;
  constructor(db: Database) {
    this.col = db.collection<CaseRunDoc>('flaky_runs');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(CASE_RUN_INDEXES);
  }

  async insertMany(runs: readonly StoredCaseRun[]): Promise<void> {
    if (runs.length === 0) return;
    await this.col.insertMany(
      runs.map(({ id, ...rest }) => ({ _id: id, ...rest })),
      { ordered: false },
    );
  }

  /** Whether this upload holds a failed run of the test in [start, end). */
  async failedBetween(uploadId: string, caseId: string, start: Date, end: Date): Promise<boolean> {
    const d = await this.col.findOne({ uploadId, caseId, outcome: 'failed', at: { $gte: start, $lt: end } }, { projection: { _id: 1 } });
    return d !== null;
  }

  /** The distinct tests that failed at least once in these uploads. */
  async failedIn(uploadIds: readonly string[]): Promise<{ caseId: string; testId: string }[]> {
    if (uploadIds.length === 0) return [];
    const docs = await this.col.find({ uploadId: { $in: [...uploadIds] }, outcome: 'failed' }, { projection: { _id: 0, caseId: 1, testId: 1 } });
    const seen = new Map<string, { caseId: string; testId: string }>();
    for (const d of docs) if (!seen.has(d.caseId)) seen.set(d.caseId, { caseId: d.caseId, testId: d.testId });
    return [...seen.values()];
  }

  async deleteByUpload(uploadId: string): Promise<void> {
    await this.col.deleteMany({ uploadId });
  }

  async countByUpload(uploadId: string): Promise<number> {
    return this.col.countDocuments({ uploadId });
  }
}
