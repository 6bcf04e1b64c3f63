// Failure clusters per test, day and upload: how often a test failed "the same way" (normalised
// summary, failure-summary.ts) — what `most_common_failures` is built from without reading runs.
// Insert-only, like the hour counters; readers sum per cluster key.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';

export interface ClusterDelta {
  /** Unique per document (`<uploadId>:c<n>`). */
  id: string;
  repoId: string;
  caseId: string;
  uploadId: string;
  key: string;
  day: Date;
  summary: string;
  count: number;
  lastAt: Date;
  expiresAt: Date;
}

export interface ClusterDay {
  key: string;
  day: Date;
  summary: string;
  count: number;
  lastAt: Date;
}

type ClusterDoc = StoredDoc & Omit<ClusterDelta, 'id'>;

export const CLUSTER_INDEXES: IndexSpec[] = [
  { key: { caseId: 1, day: 1 }, name: 'case_day', comment: 'most_common_failures of a set of tests since a day' },
  { key: { uploadId: 1 }, name: 'upload', comment: 'dropping what an interrupted ingest wrote' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

/** Failure clusters per test and day, as the services see them (DbFailureClusterRepository is the database's). */
export interface FailureClusterRepository {
  /** Drops the clusters an interrupted attempt at processing the upload wrote. */
  deleteByUpload(uploadId: string): Promise<void>;
  insert(deltas: readonly ClusterDelta[]): Promise<void>;
  forCases(caseIds: readonly string[], since: Date): Promise<Map<string, ClusterDay[]>>;
}

export class DbFailureClusterRepository implements FailureClusterRepository {
  private readonly col: DocCollection<ClusterDoc>;
  constructor(db: Database) {
    this.col = db.collection<ClusterDoc>('flaky_failure_clusters');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(CLUSTER_INDEXES);
  }

  /** Drops the clusters an interrupted attempt at processing the upload wrote. */
  async deleteByUpload(uploadId: string): Promise<void> {
    await this.col.deleteMany({ uploadId });
  }

  async insert(deltas: readonly ClusterDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await this.col.insertMany(
      deltas.map(({ id, ...rest }) => ({ _id: id, ...rest })),
      { ordered: false },
    );
  }

  async forCases(caseIds: readonly string[], since: Date): Promise<Map<string, ClusterDay[]>> {
    const out = new Map<string, ClusterDay[]>();
    // Small `$in` lists: the embedded database tests the list against every candidate document.
    for (let i = 0; i < caseIds.length; i += 20) {
      const docs = await this.col.find({ caseId: { $in: caseIds.slice(i, i + 20) }, day: { $gte: since } });
      for (const d of docs) {
        const c: ClusterDay = { key: d.key, day: d.day, summary: d.summary, count: d.count, lastAt: d.lastAt };
        const list = out.get(d.caseId);
        if (list) list.push(c);
        else out.set(d.caseId, [c]);
      }
    }
    return out;
  }
}
