// The flaky-tests repositories and upload blob stores, run against every database (embedded
// always, MongoDB with MONGO_URL): keys that make a re-run of
// an ingest idempotent, single-use upload URLs, the due marks of the refresh job.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import { runMigrations } from '../../shared/platform/database/migrations.js';
import { serviceMigrations } from '../../shared/composition/migrations.js';
import { createLogger } from '../../shared/platform/logging.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { createFlakyStore, type FlakyStore } from '../../shared/flaky-tests/store/flaky-store.js';
import { defaultDetectionConfig } from '../../shared/flaky-tests/domain/detection/config.js';
import { NEVER_DUE } from '../../shared/flaky-tests/store/repo-settings-repository.js';
import { FileUploadBlobStore } from '../../shared/flaky-tests/store/file-upload-blob-store.js';
import { GridFsUploadBlobStore } from '../../shared/flaky-tests/store/gridfs-upload-blob-store.js';
import type { UploadBlobStore } from '../../shared/flaky-tests/store/upload-blob-store.js';
import { isDuplicateKeyError } from '../../shared/platform/database/collection.js';
import { caseIdCandidates } from '../../shared/flaky-tests/domain/model.js';
import type { BucketUpload, CaseRunRow, CaseRunUpload } from '../../shared/flaky-tests/store/upload-rows.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
import { anUpload, aSeenTest, LATER, T0 } from '../helpers/flaky-records.js';

function runUpload(uploadId: string): CaseRunUpload {
  return { orgId: 'org1', repoId: 'r1', uploadId, sha: 'a'.repeat(40), branch: 'main', branchClass: 'main', prNumber: null, expiresAt: LATER };
}

function caseRun(seq: number, over: Partial<CaseRunRow> = {}): CaseRunRow {
  return {
    seq,
    caseId: 'r1:t',
    attempt: seq,
    outcome: 'failed',
    durationMs: 1,
    at: T0.getTime(),
    failureMessage: 'boom',
    failureSummary: 'boom',
    failureKey: 'k',
    ...over,
  };
}

function bucketUpload(uploadId: string, prNumber: number | null = null): BucketUpload {
  return { repoId: 'r1', uploadId, branch: 'main', branchClass: 'main', prNumber, retentionMs: 1000 * 86_400_000 };
}

const HOUR = 3_600_000;
const at = (ms: number) => new Date(T0.getTime() + ms);
const ms = (offset: number) => T0.getTime() + offset;

forEachDatabase('flaky repositories', (getDb) => {
  let store: FlakyStore;
  beforeEach(async () => {
    store = createFlakyStore(getDb());
    await ensureIndexes(store);
  });

  describe('test case runs and counters of an upload', () => {
    it('are keyed by (upload, index): a repeated insert is refused, a dropped attempt leaves nothing', async () => {
      const uploadId = randomUUID();
      await store.caseRuns.insertBatch(runUpload(uploadId), [caseRun(0), caseRun(1)]);
      let err: unknown = null;
      await store.caseRuns.insertBatch(runUpload(uploadId), [caseRun(0)]).catch((e: unknown) => (err = e));
      expect(isDuplicateKeyError(err) || (err as { writeErrors?: unknown } | null)?.writeErrors !== undefined, String(err)).to.equal(true);
      expect(await store.caseRuns.failedBetween(uploadId, 'r1:t', T0, LATER)).to.equal(true);
      const t0 = T0.getTime();
      const row = { caseId: 'r1:t', hour: t0, passed: 0, failed: 1, skipped: 0, firstFailureAt: t0, lastFailureAt: t0, lastRunAt: t0, firstPassAt: null };
      await store.buckets.insert(bucketUpload(uploadId), 0, [row]);
      err = null;
      await store.buckets.insert(bucketUpload(uploadId), 0, [row]).catch((e: unknown) => (err = e));
      expect(isDuplicateKeyError(err) || (err as { writeErrors?: unknown } | null)?.writeErrors !== undefined, String(err)).to.equal(true);
      await store.clusters.insert([
        { id: `${uploadId}:c0`, repoId: 'r1', caseId: 'r1:t', uploadId, key: 'k', day: T0, summary: 'boom', count: 1, lastAt: T0, expiresAt: LATER },
      ]);
      expect(await store.buckets.outcomesIn([uploadId], ['r1:t'])).to.have.length(1);

      await store.caseRuns.deleteByUpload(uploadId);
      await store.buckets.deleteByUpload(uploadId);
      await store.clusters.deleteByUpload(uploadId);
      expect(await store.caseRuns.countByUpload(uploadId)).to.equal(0);
      expect(await store.buckets.outcomesIn([uploadId], ['r1:t'])).to.deep.equal([]);
      expect((await store.clusters.forCases(['r1:t'], new Date(0))).get('r1:t') ?? []).to.deep.equal([]);
      await store.caseRuns.insertBatch(runUpload(uploadId), [caseRun(0), caseRun(1)]);
      await store.caseRuns.insertBatch(runUpload(uploadId), [caseRun(2)]);
      expect(await store.caseRuns.countByUpload(uploadId)).to.equal(3);
    });

    it('failedBetween: a failed run of that test inside [start, end), not a passed one or another test', async () => {
      const uploadId = randomUUID();
      await store.caseRuns.insertBatch(runUpload(uploadId), [
        caseRun(0, { caseId: 'r1:a', outcome: 'passed', at: ms(HOUR), failureMessage: null, failureSummary: null, failureKey: null }),
        caseRun(1, { caseId: 'r1:a', at: ms(3 * HOUR) }),
        caseRun(2, { caseId: 'r1:b', at: ms(HOUR) }),
      ]);
      expect(await store.caseRuns.failedBetween(uploadId, 'r1:a', at(3 * HOUR), at(4 * HOUR))).to.equal(true);
      expect(await store.caseRuns.failedBetween(uploadId, 'r1:a', at(0), at(3 * HOUR)), 'only the passed run is before').to.equal(false);
      expect(await store.caseRuns.failedBetween(uploadId, 'r1:b', at(HOUR), at(HOUR + 1))).to.equal(true);
      expect(await store.caseRuns.failedBetween(uploadId, 'r1:b', at(2 * HOUR), LATER)).to.equal(false);
      expect(await store.caseRuns.failedBetween(randomUUID(), 'r1:b', T0, LATER)).to.equal(false);
    });

    it('hour counters: read per test since a time, across hours, weeks and parts; failing ones per hour; outcomes per upload', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      const week = 7 * 24 * HOUR;
      const row = (caseId: string, hourMs: number, failed: number) => ({
        caseId,
        hour: ms(hourMs),
        passed: 1,
        failed,
        skipped: 0,
        firstFailureAt: failed ? ms(hourMs + 60_000) : null,
        lastFailureAt: failed ? ms(hourMs + 120_000) : null,
        lastRunAt: ms(hourMs + 120_000),
        firstPassAt: ms(hourMs + 1000),
      });
      // Upload a: two parts, one spanning two hours; upload b: a week later, on a PR.
      await store.buckets.insert(bucketUpload(a), 0, [row('r1:x', 0, 1), row('r1:y', 0, 0), row('r1:x', HOUR, 0)]);
      await store.buckets.insert(bucketUpload(a), 1, [row('r1:z', 0, 2)]);
      await store.buckets.insert(bucketUpload(b, 42), 0, [row('r1:x', week, 1)]);

      const all = await store.buckets.forCases(['r1:x', 'r1:z', 'r1:none'], T0, at(week + HOUR));
      const x = (all.get('r1:x') ?? []).sort((p, q) => p.hour.getTime() - q.hour.getTime());
      expect(x.map((bucket) => [bucket.hour.getTime() - T0.getTime(), bucket.failed, bucket.failedPrs])).to.deep.equal([
        [0, 1, []],
        [HOUR, 0, []],
        [week, 1, [42]],
      ]);
      expect(x[0]).to.deep.include({
        branch: 'main',
        branchClass: 'main',
        passed: 1,
        skipped: 0,
        firstFailureAt: at(60_000),
        lastFailureAt: at(120_000),
        lastRunAt: at(120_000),
      });
      expect(x[1]).to.deep.include({ firstFailureAt: null, lastFailureAt: null });
      expect(all.get('r1:z')?.map((bucket) => bucket.failed)).to.deep.equal([2]);
      expect(all.has('r1:none')).to.equal(false);
      expect(all.has('r1:y'), 'a test not asked for').to.equal(false);
      const recent = await store.buckets.forCases(['r1:x'], at(HOUR), at(week));
      expect(
        recent
          .get('r1:x')
          ?.map((bucket) => bucket.hour.getTime() - T0.getTime())
          .sort((p, q) => p - q),
      ).to.deep.equal([HOUR, week]);

      const failing = await store.buckets.failingIn('r1', [T0.getTime(), T0.getTime() + HOUR]);
      expect(failing.map((f) => [f.caseId, f.uploadId, f.firstFailureAt.getTime() - T0.getTime()]).sort()).to.deep.equal([
        ['r1:x', a, 60_000],
        ['r1:z', a, 60_000],
      ]);
      expect(await store.buckets.failingIn('r2', [T0.getTime()])).to.deep.equal([]);

      const outcomes = await store.buckets.outcomesIn([a], ['r1:x', 'r1:z']);
      expect(outcomes.map((o) => o.caseId).sort()).to.deep.equal(['r1:x', 'r1:x', 'r1:z']);
      expect(outcomes.find((o) => o.caseId === 'r1:z')).to.deep.equal({ caseId: 'r1:z', firstFailureAt: ms(60_000), firstPassAt: ms(1000) });
    });

    it('runs and counters an earlier version stored one per document are moved into blocks by the first migrations, once, also by two start-ups at once', async () => {
      const db = getDb();
      const uploadId = randomUUID();
      const upload = {
        orgId: 'org1',
        repoId: 'r1',
        uploadId,
        sha: 'a'.repeat(40),
        branch: 'feature/x',
        branchClass: 'pr' as const,
        prNumber: 7,
        expiresAt: LATER,
      };
      // 1,001 runs, one lost to an old crash (sequence 3): blocks cut at 500 and at the gap.
      const runs = Array.from({ length: 1002 }, (_, seq) => seq)
        .filter((seq) => seq !== 3)
        .map((seq) => ({
          _id: `${uploadId}:${seq}`,
          ...upload,
          caseId: seq % 2 ? 'r1:odd' : 'r1:even',
          testId: seq % 2 ? 'odd' : 'even',
          attempt: 0,
          outcome: seq === 1001 ? ('failed' as const) : ('passed' as const),
          durationMs: 5,
          at: at(seq),
          failureMessage: seq === 1001 ? 'boom' : null,
          failureSummary: null,
          failureKey: null,
        }));
      await db.collection('flaky_runs').insertMany(runs);
      const counter = (n: number, caseId: string, failed: number) => ({
        _id: `${uploadId}:b${n}`,
        repoId: 'r1',
        caseId,
        span: 'x',
        uploadId,
        hour: at(n * HOUR),
        branch: 'feature/x',
        branchClass: 'pr',
        passed: 1,
        failed,
        skipped: 0,
        firstFailureAt: failed ? at(n * HOUR + 5) : null,
        lastFailureAt: failed ? at(n * HOUR + 9) : null,
        lastRunAt: at(n * HOUR + 9),
        firstPassAt: at(n * HOUR + 1),
        failedPrs: failed ? [7] : [],
        expiresAt: new Date(n * HOUR + T0.getTime() + 86_400_000 * 30),
        ...(failed ? { failKey: `r1|${at(n * HOUR).getTime()}` } : {}),
      });
      await db.collection('flaky_test_hours').insertMany([counter(0, 'r1:odd', 0), counter(1, 'r1:odd', 1), counter(150, 'r1:even', 0)]);

      const migrate = (owner: string) => runMigrations(db, serviceMigrations, { logger: createLogger('silent'), owner, pollMs: 20 });
      const [one, other] = await Promise.all([migrate('one'), migrate('other')]);
      expect([...one.applied, ...other.applied].sort()).to.deep.equal(['flaky-hour-counters-into-blocks', 'flaky-runs-into-blocks']);
      expect(await db.collection('flaky_runs').countDocuments({})).to.equal(0);
      expect(await db.collection('flaky_test_hours').countDocuments({})).to.equal(0);
      expect(await store.caseRuns.countByUpload(uploadId)).to.equal(1001);
      expect(await store.caseRuns.failedIn([uploadId])).to.deep.equal([{ caseId: 'r1:odd', testId: 'odd' }]);
      expect(await store.caseRuns.failedBetween(uploadId, 'r1:odd', at(1001), at(1002))).to.equal(true);
      const buckets = await store.buckets.forCases(['r1:odd', 'r1:even'], T0, at(200 * HOUR));
      expect(buckets.get('r1:odd')?.map((b) => [b.hour.getTime() - T0.getTime(), b.failed, b.failedPrs, b.firstFailureAt?.getTime()])).to.have.deep.members([
        [0, 0, [], undefined],
        [HOUR, 1, [7], at(HOUR + 5).getTime()],
      ]);
      expect(buckets.get('r1:even')?.map((b) => b.hour.getTime() - T0.getTime())).to.deep.equal([150 * HOUR]);
      expect((await store.buckets.failingIn('r1', [at(HOUR).getTime()])).map((f) => f.caseId)).to.deep.equal(['r1:odd']);
    });

    it('failedIn: the distinct tests with a failed run in these uploads', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      await store.caseRuns.insertBatch(runUpload(a), [caseRun(0), caseRun(1), caseRun(2, { caseId: 'r1:p', outcome: 'passed' })]);
      await store.caseRuns.insertBatch(runUpload(b), [caseRun(0, { caseId: 'r1:u' })]);
      const failed = await store.caseRuns.failedIn([a, b]);
      expect(failed.sort((x, y) => (x.caseId < y.caseId ? -1 : 1))).to.deep.equal([
        { caseId: 'r1:t', testId: 't' },
        { caseId: 'r1:u', testId: 'u' },
      ]);
      expect(await store.caseRuns.failedIn([])).to.deep.equal([]);
    });

    it('an unfinished upload record is dropped for a re-run, a complete one is kept', async () => {
      const unfinished = randomUUID();
      const complete = randomUUID();
      await store.uploads.insert(anUpload({ id: unfinished, state: 'receiving' }));
      await store.uploads.insert(anUpload({ id: complete, state: 'complete' }));
      await store.uploads.deleteUnfinished(unfinished);
      await store.uploads.deleteUnfinished(complete);
      expect(await store.uploads.findById(unfinished)).to.equal(null);
      expect((await store.uploads.findById(complete))?.state).to.equal('complete');
      expect(await store.uploads.includedForRetry('r1', { sha: 'a'.repeat(40), tree: null }, 'other')).to.deep.equal([complete]);
    });

    it('uploads of merge-queue test branches: the same tree counts as a retry, and they are found by test run', async () => {
      const upload = (id: string, sha: string, testRunId: string) =>
        anUpload({
          id,
          sha,
          branch: `trunk-merge/pr-1/${testRunId}`,
          branchClass: 'merge_queue',
          testRunId,
          tree: 't'.repeat(40),
          state: 'complete',
          counts: { runs: 1, passed: 0, failed: 1, skipped: 0, tests: 1, testsFailed: 1 },
        });
      const first = randomUUID();
      await store.uploads.insert(upload(first, 'b'.repeat(40), 'run-1'));
      expect(await store.uploads.includedForRetry('r1', { sha: 'c'.repeat(40), tree: 't'.repeat(40) }, 'other')).to.deep.equal([first]);
      expect(await store.uploads.includedForRetry('r1', { sha: 'c'.repeat(40), tree: null }, 'other')).to.deep.equal([]);
      expect((await store.uploads.linkedToRuns(['run-1'])).map((u) => u.id)).to.deep.equal([first]);
      expect(await store.uploads.linkedToRuns(['run-2'])).to.deep.equal([]);
    });
  });

  describe('tests', () => {
    it('are found by a test id as a caller gives it: as given first, then lower-cased', async () => {
      const seen = (testId: string) => aSeenTest(testId, { name: `test ${testId}` });
      await store.tests.insertNew([seen('abc-123'), seen('Verbatim-ID'), seen('verbatim-id')]);
      expect((await store.tests.findFirst(caseIdCandidates('r1', 'ABC-123')))?.testId).to.equal('abc-123');
      expect((await store.tests.findFirst(caseIdCandidates('r1', 'Verbatim-ID')))?.testId).to.equal('Verbatim-ID');
      expect(await store.tests.findFirst(caseIdCandidates('r2', 'abc-123'))).to.equal(null);
      expect(await store.tests.findFirst([])).to.equal(null);
    });
  });

  describe('repositories', () => {
    it('are due for the refresh job once a test may change by time, until the mark is raised', async () => {
      const repo = await store.repos.ensure('org1', REPO, T0, defaultDetectionConfig());
      expect(await store.repos.ensure('org1', REPO, T0, defaultDetectionConfig())).to.deep.include({ id: repo.id });
      expect(await store.repos.dueBy(LATER, 10)).to.deep.equal([]);
      await store.repos.lowerDueAt(repo.id, T0);
      expect((await store.repos.dueBy(T0, 10)).map((r) => r.id)).to.deep.equal([repo.id]);
      expect(await store.repos.dueBy(new Date(T0.getTime() - 1), 10)).to.deep.equal([]);
      await store.repos.raiseDueAt(repo.id, T0, NEVER_DUE);
      expect(await store.repos.dueBy(LATER, 10)).to.deep.equal([]);
    });
  });

  describe('upload URLs', () => {
    it('are claimed once, with the right key, before they expire', async () => {
      const id = randomUUID();
      await store.bundleUploads.create(
        {
          id,
          orgId: 'org1',
          orgSlug: 'acme',
          repo: REPO,
          clientVersion: null,
          state: 'pending',
          createdAt: T0,
          expiresAt: new Date(T0.getTime() + 60_000),
          uploadId: null,
          error: null,
        },
        'k'.repeat(43),
      );
      expect(await store.bundleUploads.claim(id, 'x'.repeat(43), T0)).to.equal(null);
      expect(await store.bundleUploads.claim(id, 'k'.repeat(43), new Date(T0.getTime() + 61_000))).to.equal(null);
      const claims = await Promise.all([store.bundleUploads.claim(id, 'k'.repeat(43), T0), store.bundleUploads.claim(id, 'k'.repeat(43), T0)]);
      expect(claims.filter((c) => c !== null)).to.have.length(1);
    });
  });
});

function blobStoreContract(kind: string, open: () => Promise<{ blobs: UploadBlobStore; discard: () => Promise<void> }>): void {
  describe(`upload blob store [${kind}]`, () => {
    let blobs: UploadBlobStore;
    let discard: () => Promise<void>;
    beforeEach(async () => {
      ({ blobs, discard } = await open());
    });
    afterEach(async () => {
      await discard();
    });

    const read = async (uploadId: string, index: number) => {
      const parts: Buffer[] = [];
      for await (const b of blobs.get(uploadId, index)) parts.push(b);
      return Buffer.concat(parts).toString('utf8');
    };

    it('keeps the blobs of an upload until they are deleted together', async () => {
      const uploadId = randomUUID();
      await blobs.put(
        uploadId,
        0,
        (async function* () {
          yield 'first ';
          yield Buffer.from('report');
        })(),
      );
      await blobs.put(
        uploadId,
        1,
        (async function* () {
          yield 'second';
        })(),
      );
      expect(await read(uploadId, 0)).to.equal('first report');
      expect(await read(uploadId, 1)).to.equal('second');
      await blobs.deleteUpload(uploadId);
      await blobs.deleteUpload(uploadId);
      let err: unknown = null;
      await read(uploadId, 0).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(Error);
    });

    it('never shows a blob whose writing failed', async () => {
      const uploadId = randomUUID();
      const failing = (async function* () {
        yield 'half a report';
        throw new Error('client went away');
      })();
      let err: unknown = null;
      await blobs.put(uploadId, 0, failing).catch((e: unknown) => (err = e));
      expect((err as Error | null)?.message).to.equal('client went away');
      let missing: unknown = null;
      await read(uploadId, 0).catch((e: unknown) => (missing = e));
      expect(missing).to.be.instanceOf(Error);
      await blobs.deleteUpload(uploadId);
    });

    it('refuses names that are not upload ids', async () => {
      let err: unknown = null;
      await blobs
        .put(
          '../../etc',
          0,
          (async function* () {
            yield 'x';
          })(),
        )
        .catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(Error);
    });
  });
}

blobStoreContract('files', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'openmq-blobs-'));
  return { blobs: new FileUploadBlobStore(path.join(dir, 'flaky-uploads')), discard: async () => rmSync(dir, { recursive: true, force: true }) };
});

if (process.env.MONGO_URL) {
  const url = process.env.MONGO_URL;
  blobStoreContract('gridfs', async () => {
    const blobs = await GridFsUploadBlobStore.open(url);
    return { blobs, discard: () => blobs.close() };
  });
}
