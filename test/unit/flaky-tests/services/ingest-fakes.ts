// In-memory fakes of the repositories and blob store the ingest use case works with: they keep
// documents in maps and enforce what the real ones enforce (unique ids, the received-upload state
// machine), so the use case can be tested without a database, Redis or workers.
import { randomUUID } from 'node:crypto';
import type { RepoRef } from '../../../../shared/platform/repo-ref.js';
import { initialHealth } from '../../../../shared/flaky-tests/domain/detection/classify.js';
import type { DetectionConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import type { ByteSource } from '../../../../shared/flaky-tests/formats/junit/index.js';
import type { IngestRepositories } from '../../../../shared/flaky-tests/services/ingest-repositories.js';
import { IngestService } from '../../../../shared/flaky-tests/services/ingest-service.js';
import type { TestRunLinks } from '../../../../shared/flaky-tests/services/test-run-links.js';
import { DEFAULT_FLAKY_SETTINGS } from '../../../../shared/flaky-tests/services/flaky-settings.js';
import type { OrgRef } from '../../../../shared/flaky-tests/services/repo-resolver.js';
import type { ClusterDelta } from '../../../../shared/flaky-tests/store/failure-cluster-repository.js';
import { NEVER_DUE } from '../../../../shared/flaky-tests/store/repo-settings-repository.js';
import type { DetectionWrite } from '../../../../shared/flaky-tests/store/retry-detection-repository.js';
import type { SeenRefresh, SeenTest } from '../../../../shared/flaky-tests/store/test-case-repository.js';
import type { UploadRepository } from '../../../../shared/flaky-tests/store/upload-repository.js';
import type { UploadBlobStore } from '../../../../shared/flaky-tests/store/upload-blob-store.js';
import { notFound } from '../../../../shared/platform/errors.js';
import { createLogger } from '../../../../shared/platform/logging.js';
import type { BundleUploadState, FlakyRepo, ReceivedUpload, TestCase, Upload, UploadOutcome } from '../../../../shared/flaky-tests/domain/model.js';
import type { BucketRow, BucketUpload, CaseRunRow, CaseRunUpload } from '../../../../shared/flaky-tests/store/upload-rows.js';

const duplicate = (id: string) => Object.assign(new Error(`E11000 duplicate key ${id}`), { code: 11000 });

function insertUnique<T>(map: Map<string, T>, id: string, value: T): void {
  if (map.has(id)) throw duplicate(id);
  map.set(id, value);
}

export class FakeIngestStore implements IngestRepositories {
  readonly repoDocs = new Map<string, FlakyRepo>();
  readonly testDocs = new Map<string, TestCase>();
  /** Runs by `<uploadId>:<seq>` (the real repository stores them in blocks). */
  readonly caseRunDocs = new Map<string, CaseRunRow & { uploadId: string }>();
  readonly uploadDocs = new Map<string, Upload>();
  /** Counters by `<uploadId>:<part>:<hour>:<caseId>` (the real repository stores them in blocks). */
  readonly bucketDocs = new Map<string, BucketRow & { uploadId: string }>();
  readonly clusterDocs = new Map<string, ClusterDelta>();
  readonly detectionDocs = new Map<string, DetectionWrite>();
  readonly receivedDocs = new Map<string, ReceivedUpload>();
  readonly bundleStates = new Map<string, BundleUploadState>();
  /** Makes the next case-run insert fail, as a database (or a dying worker) would. */
  failNextCaseRunInsert = false;

  repos: IngestRepositories['repos'] = {
    ensure: async (orgId: string, repo: RepoRef, now: Date, detection: DetectionConfig) => {
      const found = [...this.repoDocs.values()].find(
        (r) => r.orgId === orgId && r.repo.owner === repo.owner && r.repo.name === repo.name && r.repo.host === repo.host,
      );
      if (found) return found;
      const created: FlakyRepo = {
        id: randomUUID(),
        orgId,
        repo,
        quarantine: { enabled: false, autoQuarantine: false, releaseAfterCleanDays: 7 },
        detection,
        ticketUrlTemplate: null,
        createdAt: now,
        updatedAt: now,
        version: 1,
        history: [],
        dueAt: NEVER_DUE,
      };
      this.repoDocs.set(created.id, created);
      return created;
    },
    findById: async (id: string) => this.repoDocs.get(id) ?? null,
  };

  tests: IngestRepositories['tests'] = {
    findByIds: async (ids: readonly string[]) => ids.flatMap((id) => this.testDocs.get(id) ?? []),
    insertNew: async (tests: readonly SeenTest[]) => {
      for (const t of tests) {
        if (this.testDocs.has(t.caseId)) continue; // a concurrent writer created it: fine
        this.testDocs.set(t.caseId, {
          id: t.caseId,
          orgId: t.orgId,
          repoId: t.repoId,
          testId: t.testId,
          name: t.name,
          classname: t.classname,
          parent: t.parent,
          file: t.file,
          fileHint: t.fileHint,
          variant: t.variant,
          codeowners: t.codeowners ?? [],
          createdAt: t.firstRunAt,
          lastRunAt: t.lastRunAt,
          ...initialHealth(t.firstRunAt),
          statusHistory: [],
          quarantine: null,
          quarantineHistory: [],
          ticket: null,
          version: 0,
          lastEvidenceAt: t.lastEvidenceAt,
        });
      }
    },
    refreshSeen: async (items: readonly { caseId: string; seen: SeenRefresh }[]) => {
      for (const { caseId, seen } of items) {
        const t = this.testDocs.get(caseId);
        if (!t) continue;
        if (seen.codeowners) t.codeowners = seen.codeowners;
        if (seen.fileHint !== null) t.fileHint = seen.fileHint;
        if (seen.lastRunAt > t.lastRunAt) t.lastRunAt = seen.lastRunAt;
        if (seen.lastEvidenceAt && (!t.lastEvidenceAt || seen.lastEvidenceAt > t.lastEvidenceAt)) t.lastEvidenceAt = seen.lastEvidenceAt;
      }
    },
  };

  caseRuns: IngestRepositories['caseRuns'] = {
    insertBatch: async (upload: CaseRunUpload, runs: readonly CaseRunRow[]) => {
      const store = (list: readonly CaseRunRow[]) => {
        for (const r of list) insertUnique(this.caseRunDocs, `${upload.uploadId}:${r.seq}`, { ...r, uploadId: upload.uploadId });
      };
      if (this.failNextCaseRunInsert) {
        this.failNextCaseRunInsert = false;
        // Half the batch lands, then the writer dies.
        store(runs.slice(0, Math.ceil(runs.length / 2)));
        throw new Error('connection lost');
      }
      store(runs);
    },
    deleteByUpload: async (uploadId: string) => {
      for (const [id, r] of this.caseRunDocs) if (r.uploadId === uploadId) this.caseRunDocs.delete(id);
    },
  };

  uploads: IngestRepositories['uploads'] = {
    insert: async (u: Upload) => insertUnique(this.uploadDocs, u.id, { ...u }),
    finish: async (id: string, patch: Parameters<UploadRepository['finish']>[1]) => {
      const u = this.uploadDocs.get(id);
      if (u) Object.assign(u, patch);
    },
    includedForRetry: async (repoId: string, code: { sha: string; tree: string | null }, exceptId: string) =>
      [...this.uploadDocs.values()]
        .filter((u) => u.repoId === repoId && (u.sha === code.sha || (code.tree !== null && u.tree === code.tree)))
        .filter((u) => u.state === 'complete' && !u.excluded && u.id !== exceptId)
        .map((u) => u.id),
    deleteUnfinished: async (id: string) => {
      if (this.uploadDocs.get(id)?.state !== 'complete') this.uploadDocs.delete(id);
    },
  };

  buckets: IngestRepositories['buckets'] = {
    insert: async (upload: BucketUpload, part: number, rows: readonly BucketRow[]) => {
      for (const r of rows) insertUnique(this.bucketDocs, `${upload.uploadId}:${part}:${r.hour}:${r.caseId}`, { ...r, uploadId: upload.uploadId });
    },
    outcomesIn: async (uploadIds: readonly string[], caseIds: readonly string[]) =>
      [...this.bucketDocs.values()]
        .filter((b) => uploadIds.includes(b.uploadId) && caseIds.includes(b.caseId))
        .map((b) => ({ caseId: b.caseId, firstFailureAt: b.firstFailureAt, firstPassAt: b.firstPassAt })),
    deleteByUpload: async (uploadId: string) => {
      for (const [id, b] of this.bucketDocs) if (b.uploadId === uploadId) this.bucketDocs.delete(id);
    },
  };

  clusters: IngestRepositories['clusters'] = {
    insert: async (deltas: readonly ClusterDelta[]) => {
      for (const d of deltas) insertUnique(this.clusterDocs, d.id, d);
    },
    deleteByUpload: async (uploadId: string) => {
      for (const [id, c] of this.clusterDocs) if (c.uploadId === uploadId) this.clusterDocs.delete(id);
    },
  };

  detections: IngestRepositories['detections'] = {
    record: async (ds: readonly DetectionWrite[]) => {
      for (const d of ds) this.detectionDocs.set(`${d.caseId}|${d.sha}`, d);
    },
  };

  received: IngestRepositories['received'] = {
    insert: async (r: ReceivedUpload) => insertUnique(this.receivedDocs, r.id, structuredClone(r)),
    findById: async (id: string) => {
      const r = this.receivedDocs.get(id);
      return r ? structuredClone(r) : null;
    },
    takeNext: async (repoId: string) => {
      const next = [...this.receivedDocs.values()]
        .filter((r) => r.repoId === repoId && (r.state === 'queued' || r.state === 'processing'))
        .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime())[0];
      if (!next) return null;
      next.state = 'processing';
      next.attempts++;
      return structuredClone(next);
    },
    finish: async (id: string, outcome: UploadOutcome) => {
      const r = this.receivedDocs.get(id);
      if (!r || (r.state !== 'queued' && r.state !== 'processing')) return false;
      r.state = outcome.ok ? 'complete' : 'failed';
      r.outcome = structuredClone(outcome);
      return true;
    },
    repositoriesWaitingSince: async (before: Date) => {
      const byRepo = new Map<string, string>();
      for (const r of this.receivedDocs.values()) {
        if ((r.state === 'queued' || r.state === 'processing') && r.receivedAt < before && !byRepo.has(r.repoId)) byRepo.set(r.repoId, r.id);
      }
      return [...byRepo].map(([repoId, uploadId]) => ({ repoId, uploadId }));
    },
  };

  bundleUploads: IngestRepositories['bundleUploads'] = {
    finish: async (id: string, result: { state: 'complete' | 'failed' }) => void this.bundleStates.set(id, result.state),
  };
}

export class FakeBlobStore implements UploadBlobStore {
  readonly blobs = new Map<string, Buffer>();

  async put(uploadId: string, index: number, bytes: ByteSource): Promise<void> {
    const parts: Buffer[] = [];
    for await (const c of bytes) parts.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
    this.blobs.set(`${uploadId}/${index}`, Buffer.concat(parts));
  }

  async *get(uploadId: string, index: number): AsyncGenerator<Buffer> {
    const blob = this.blobs.get(`${uploadId}/${index}`);
    if (!blob) throw new Error(`no blob ${uploadId}/${index}`);
    yield blob;
  }

  async deleteUpload(uploadId: string): Promise<void> {
    for (const key of [...this.blobs.keys()]) if (key.startsWith(`${uploadId}/`)) this.blobs.delete(key);
  }

  async close(): Promise<void> {}
}

export const ORG: OrgRef = { id: 'org-1', slug: 'acme' };

export interface IngestFakes {
  store: FakeIngestStore;
  blobs: FakeBlobStore;
  /** flaky-ingest jobs asked for, in order. */
  jobs: { repoId: string; uploadId: string }[];
  /** Test case ids handed to detection, per evaluation. */
  evaluated: string[][];
}

/** The ingest use case over fakes: `{sut, fakes}`. Jobs are recorded, not run: tests run them. */
export function newIngestService(opts: { now?: () => Date; links?: TestRunLinks; sleep?: (ms: number) => Promise<void> } = {}): {
  sut: IngestService;
  fakes: IngestFakes;
} {
  const fakes: IngestFakes = { store: new FakeIngestStore(), blobs: new FakeBlobStore(), jobs: [], evaluated: [] };
  const sut = new IngestService({
    store: fakes.store,
    blobs: fakes.blobs,
    resolver: {
      org: async (orgId: string, slug: string | null) => {
        if (orgId !== ORG.id || (slug !== null && slug !== ORG.slug)) throw notFound('organization_not_found', 'no such organization');
        return ORG;
      },
    },
    detection: {
      evaluate: async (_repo, caseIds) => {
        fakes.evaluated.push([...caseIds]);
        return 0;
      },
    },
    settings: { ...DEFAULT_FLAKY_SETTINGS },
    logger: createLogger('silent'),
    requestIngest: async (job) => void fakes.jobs.push(job),
    now: opts.now ?? (() => new Date('2026-03-02T10:00:00Z')),
    sleep: opts.sleep ?? (async () => undefined),
    ...(opts.links ? { links: opts.links } : {}),
  });
  return { sut, fakes };
}
