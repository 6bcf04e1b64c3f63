// The rows one upload writes for its tests, built from the accumulator's tallies (pure): new tests
// and refreshes of known ones, hour counters, failure clusters and pass-on-retry detections.
// IngestSession orchestrates the upload; this holds what each row says.
import type { BranchClass } from '../domain/branch-class.js';
import { ownersOf, type Codeowners } from '../domain/codeowners.js';
import { DAY_MS, mergeCommitOutcomes, retryDetectedAt, type CommitOutcomes } from '../domain/detection/index.js';
import { ownedPath, type TestTally } from '../domain/upload-accumulator.js';
import type { TestCase, UploadMeta } from '../domain/model.js';
import type { SeenRefresh, SeenTest } from '../store/test-case-repository.js';
import type { ClusterDelta } from '../store/failure-cluster-repository.js';
import type { DetectionWrite } from '../store/retry-detection-repository.js';
import type { BucketRow } from '../store/upload-rows.js';

/**
 * lastRunAt (and so the inactivity expiry) of a known test is rewritten at most this often, so a
 * test passing on every upload costs no write; the expiry carries the same slack, so an idle
 * test lives at least the retention period after its last run.
 */
const SEEN_REFRESH_MS = 7 * DAY_MS;

export interface TestRowContext {
  orgId: string;
  repoId: string;
  uploadId: string;
  meta: UploadMeta;
  branchClass: BranchClass;
  /** When the upload's records expire. */
  expiresAt: Date;
  retentionDays: number;
  /** The upload's CODEOWNERS, when it carried one. */
  codeowners: Codeowners | null;
}

export class TestRows {
  /** Numbers the cluster documents this upload writes (short, unique ids). */
  private docSeq = 0;

  constructor(private readonly ctx: TestRowContext) {}

  /** The test's owners by the upload's CODEOWNERS; null when the upload carried none. */
  private ownersOf(t: TestTally): string[] | null {
    if (!this.ctx.codeowners) return null;
    const path = ownedPath(t);
    return path ? ownersOf(this.ctx.codeowners, path) : [];
  }

  /** When an idle test expires, counted from its last run here. */
  private idleExpiry(t: TestTally): Date {
    return new Date(t.lastRunAt + this.ctx.retentionDays * DAY_MS + SEEN_REFRESH_MS);
  }

  seenTest(t: TestTally, caseId: string, evidenceAt: Date | null): SeenTest {
    return {
      caseId,
      orgId: this.ctx.orgId,
      repoId: this.ctx.repoId,
      testId: t.testId,
      name: t.name,
      classname: t.classname,
      parent: t.parent,
      file: t.file,
      fileHint: t.fileHint,
      variant: this.ctx.meta.variant,
      codeowners: this.ownersOf(t),
      firstRunAt: new Date(t.firstRunAt),
      lastRunAt: new Date(t.lastRunAt),
      expiresAt: this.idleExpiry(t),
      lastEvidenceAt: evidenceAt,
    };
  }

  /** What the upload says about a known test, when it differs enough from the stored test to be worth a write; else null. */
  refreshFor(t: TestTally, stored: TestCase, evidenceAt: Date | null): SeenRefresh | null {
    const codeowners = this.ownersOf(t);
    const due =
      (codeowners !== null && codeowners.join('\n') !== stored.codeowners.join('\n')) ||
      (t.fileHint !== null && t.fileHint !== stored.fileHint) ||
      (evidenceAt !== null && (stored.lastEvidenceAt === undefined || stored.lastEvidenceAt === null || stored.lastEvidenceAt < evidenceAt)) ||
      t.lastRunAt - stored.lastRunAt.getTime() > SEEN_REFRESH_MS;
    if (!due) return null;
    return { codeowners, fileHint: t.fileHint, lastRunAt: new Date(t.lastRunAt), expiresAt: this.idleExpiry(t), lastEvidenceAt: evidenceAt };
  }

  bucketRows(t: TestTally, caseId: string): BucketRow[] {
    return t.hours.map((h) => ({
      caseId,
      hour: h.hour,
      passed: h.passed,
      failed: h.failed,
      skipped: h.skipped,
      firstFailureAt: h.firstFailureAt,
      lastFailureAt: h.lastFailureAt,
      lastRunAt: h.lastRunAt,
      firstPassAt: h.firstPassAt,
    }));
  }

  clusterDeltas(t: TestTally, caseId: string): ClusterDelta[] {
    return (t.clusters ?? []).map((c) => ({
      id: `${this.ctx.uploadId}:c${this.docSeq++}`,
      repoId: this.ctx.repoId,
      caseId,
      uploadId: this.ctx.uploadId,
      key: c.key,
      day: new Date(c.day),
      summary: c.summary,
      count: c.count,
      lastAt: new Date(c.lastAt),
      expiresAt: new Date(c.day + this.ctx.retentionDays * DAY_MS),
    }));
  }

  /** Pass-on-retry: this upload's outcomes merged with those of earlier uploads of the same code. */
  retryDetections(tests: readonly TestTally[], earlier: ReadonlyMap<string, CommitOutcomes>, caseIdOf: (testId: string) => string): DetectionWrite[] {
    const out: DetectionWrite[] = [];
    for (const t of tests) {
      const caseId = caseIdOf(t.testId);
      const merged = mergeCommitOutcomes(t.outcomes, earlier.get(caseId) ?? { firstFailAt: null, firstPassAt: null });
      const detectedAt = retryDetectedAt(merged);
      if (detectedAt === null) continue;
      out.push({
        repoId: this.ctx.repoId,
        caseId,
        sha: this.ctx.meta.sha,
        branch: this.ctx.meta.branch,
        branchClass: this.ctx.branchClass,
        prNumber: this.ctx.meta.prNumber,
        detectedAt: new Date(detectedAt),
        expiresAt: this.ctx.expiresAt,
      });
    }
    return out;
  }
}
