// Pass-on-retry detections: one document per (test, commit) on which the test both failed and
// passed. The unique id makes several retries on one commit one detection, kept at its earliest.
import type { BulkOperation, Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { RetryDetection } from '../domain/detection/types.js';

export interface DetectionWrite extends RetryDetection {
  repoId: string;
  caseId: string;
  expiresAt: Date;
}

type DetectionDoc = StoredDoc & DetectionWrite;

export const DETECTION_INDEXES: IndexSpec[] = [
  { key: { caseId: 1, detectedAt: 1 }, name: 'case_detected', comment: 'pass-on-retry evidence of a set of tests since a time' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

/** Pass-on-retry detections, as the services see them (DbRetryDetectionRepository is the database's). */
export interface RetryDetectionRepository {
  record(detections: readonly DetectionWrite[]): Promise<void>;
  forCases(caseIds: readonly string[], since: Date): Promise<Map<string, RetryDetection[]>>;
}

export class DbRetryDetectionRepository implements RetryDetectionRepository {
  private readonly col: DocCollection<DetectionDoc>;
  constructor(db: Database) {
    this.col = db.collection<DetectionDoc>('flaky_retry_detections');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(DETECTION_INDEXES);
  }

  async record(detections: readonly DetectionWrite[]): Promise<void> {
    if (detections.length === 0) return;
    const ops: BulkOperation<DetectionDoc>[] = detections.map((d) => ({
      updateOne: {
        filter: { _id: `${d.caseId}|${d.sha}` },
        update: {
          $setOnInsert: { repoId: d.repoId, caseId: d.caseId, sha: d.sha, branch: d.branch, branchClass: d.branchClass, prNumber: d.prNumber },
          $min: { detectedAt: d.detectedAt },
          $max: { expiresAt: d.expiresAt },
        },
        upsert: true,
      },
    }));
    await this.col.bulkWrite(ops, { ordered: false });
  }

  async forCases(caseIds: readonly string[], since: Date): Promise<Map<string, RetryDetection[]>> {
    const out = new Map<string, RetryDetection[]>();
    // Detections are rare, so candidates are few and one query per batch is cheapest.
    for (let i = 0; i < caseIds.length; i += 100) {
      const docs = await this.col.find({ caseId: { $in: caseIds.slice(i, i + 100) }, detectedAt: { $gte: since } });
      for (const d of docs) {
        const det: RetryDetection = { sha: d.sha, branch: d.branch, branchClass: d.branchClass, prNumber: d.prNumber, detectedAt: d.detectedAt };
        const list = out.get(d.caseId);
        if (list) list.push(det);
        else out.set(d.caseId, [det]);
      }
    }
    return out;
  }
}
