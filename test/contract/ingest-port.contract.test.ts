// The repositories the ingest use case works with (IngestRepositories), held to one contract:
// the database's (every database) and the in-memory fakes the ingest unit tests stand on. Only
// what the port offers is used here, so the fakes are held to exactly what they stand in for.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { createFlakyStore } from '../../shared/flaky-tests/store/flaky-store.js';
import type { IngestRepositories } from '../../shared/flaky-tests/services/ingest-repositories.js';
import { defaultDetectionConfig } from '../../shared/flaky-tests/domain/detection/config.js';
import type { ReceivedUpload } from '../../shared/flaky-tests/domain/model.js';
import { anUpload, aSeenTest, LATER, T0 } from '../helpers/flaky-records.js';
import { FakeIngestStore } from '../unit/flaky-tests/services/ingest-fakes.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

function forEachIngestStore(title: string, fn: (getStore: () => IngestRepositories) => void): void {
  forEachDatabase(title, (getDb) => {
    let store: IngestRepositories | null = null;
    beforeEach(async () => {
      const created = createFlakyStore(getDb());
      await ensureIndexes(created);
      store = created;
    });
    fn(() => store!);
  });
  describe(`${title} [in-memory fakes]`, () => {
    let store: IngestRepositories = new FakeIngestStore();
    beforeEach(() => {
      store = new FakeIngestStore();
    });
    fn(() => store);
  });
}

const received = (repoId: string, at: Date): ReceivedUpload => ({
  id: randomUUID(),
  orgId: 'org1',
  orgSlug: 'acme',
  repoId,
  receivedAt: at,
  state: 'queued',
  attempts: 0,
  input: { source: 'bundle', bundleUploadId: randomUUID(), repo: REPO },
  outcome: null,
  expiresAt: LATER,
});

forEachIngestStore('ingest port', (getStore) => {
  it('received uploads are taken oldest first, one attempt counted each time, and finished once', async () => {
    const store = getStore();
    const older = received('r1', T0);
    const newer = received('r1', new Date(T0.getTime() + 1000));
    await store.received.insert(newer);
    await store.received.insert(older);
    await store.received.insert(received('r2', T0));
    expect(await store.received.takeNext('r1')).to.deep.include({ id: older.id, state: 'processing', attempts: 1 });
    // A job that died leaves it processing: the next take is the same upload, one more attempt.
    expect(await store.received.takeNext('r1')).to.deep.include({ id: older.id, attempts: 2 });
    const result = {
      uploadId: older.id,
      repoId: 'r1',
      counts: { runs: 1, passed: 1, failed: 0, skipped: 0, tests: 1, testsFailed: 0 },
      excluded: false,
      files: [],
      warnings: [],
      statusChanges: 0,
    };
    expect(await store.received.finish(older.id, { ok: true, result })).to.equal(true);
    expect(await store.received.finish(older.id, { ok: false, refusal: { kind: 'invalid', code: 'x', message: 'x', details: [] } })).to.equal(false);
    expect((await store.received.findById(older.id))?.outcome).to.deep.equal({ ok: true, result });
    expect((await store.received.takeNext('r1'))?.id).to.equal(newer.id);
    expect(await store.received.repositoriesWaitingSince(LATER)).to.have.deep.members([
      { repoId: 'r1', uploadId: newer.id },
      { repoId: 'r2', uploadId: (await store.received.takeNext('r2'))!.id },
    ]);
  });

  it('repositories are created once and found by id', async () => {
    const store = getStore();
    const repo = await store.repos.ensure('org1', REPO, T0, defaultDetectionConfig());
    expect((await store.repos.ensure('org1', REPO, T0, defaultDetectionConfig())).id).to.equal(repo.id);
    expect((await store.repos.findById(repo.id))?.repo).to.deep.equal(REPO);
    expect(await store.repos.findById('absent')).to.equal(null);
  });

  it('tests are created once (a concurrent creation is left alone), and a refresh moves their last run and evidence forward only', async () => {
    const store = getStore();
    await store.tests.insertNew([aSeenTest('a'), aSeenTest('b', { codeowners: ['@web'] })]);
    await store.tests.insertNew([aSeenTest('a', { name: 'renamed' })]);
    const later = new Date(T0.getTime() + 86_400_000);
    await store.tests.refreshSeen([
      { caseId: 'r1:a', seen: { codeowners: ['@core'], fileHint: 'a.test.ts', lastRunAt: later, expiresAt: LATER, lastEvidenceAt: later } },
      { caseId: 'r1:b', seen: { codeowners: null, fileHint: null, lastRunAt: new Date(T0.getTime() - 1000), expiresAt: LATER, lastEvidenceAt: null } },
    ]);
    const [a, b] = (await store.tests.findByIds(['r1:a', 'r1:b', 'r1:absent'])).sort((x, y) => x.id.localeCompare(y.id));
    expect(a).to.deep.include({ name: 'a', codeowners: ['@core'], fileHint: 'a.test.ts', lastRunAt: later, lastEvidenceAt: later, version: 0 });
    expect(b).to.deep.include({ codeowners: ['@web'], lastRunAt: T0 });
  });

  it('uploads that count for a retry: complete, included, of the same commit or tree; an unfinished one is dropped for a re-run', async () => {
    const store = getStore();
    const done = anUpload({ state: 'complete' });
    const excluded = anUpload({ state: 'complete', excluded: true });
    const sameTree = anUpload({ state: 'complete', sha: 'b'.repeat(40), tree: 't'.repeat(40) });
    const unfinished = anUpload({});
    for (const u of [done, excluded, sameTree, unfinished]) await store.uploads.insert(u);
    expect(await store.uploads.includedForRetry('r1', { sha: 'a'.repeat(40), tree: null }, 'other')).to.deep.equal([done.id]);
    expect((await store.uploads.includedForRetry('r1', { sha: 'a'.repeat(40), tree: 't'.repeat(40) }, done.id)).sort()).to.deep.equal([sameTree.id]);
    await store.uploads.finish(unfinished.id, { state: 'complete', counts: unfinished.counts, excluded: false, files: [], warnings: [] });
    expect((await store.uploads.includedForRetry('r1', { sha: 'a'.repeat(40), tree: null }, done.id)).sort()).to.deep.equal([unfinished.id]);
    const dropped = anUpload({});
    await store.uploads.insert(dropped);
    await store.uploads.deleteUnfinished(dropped.id);
    await store.uploads.deleteUnfinished(done.id);
    await store.uploads.insert(dropped);
    expect(await store.uploads.includedForRetry('r1', { sha: 'a'.repeat(40), tree: null }, 'other')).to.include(done.id);
  });

  it("runs are keyed by (upload, position): a repeated batch is refused until the upload's runs are dropped", async () => {
    const store = getStore();
    const runUpload = {
      orgId: 'org1',
      repoId: 'r1',
      uploadId: 'u1',
      sha: 'a'.repeat(40),
      branch: 'main',
      branchClass: 'main' as const,
      prNumber: null,
      expiresAt: LATER,
    };
    const run = {
      seq: 0,
      caseId: 'r1:a',
      attempt: 0,
      outcome: 'passed' as const,
      durationMs: 1,
      at: T0.getTime(),
      failureMessage: null,
      failureSummary: null,
      failureKey: null,
    };
    await store.caseRuns.insertBatch(runUpload, [run]);
    const again = await store.caseRuns.insertBatch(runUpload, [run]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(again, 'the same (upload, position) twice').to.be.instanceOf(Error);
    await store.caseRuns.deleteByUpload('u1');
    await store.caseRuns.insertBatch(runUpload, [run]);
  });

  it('hour counters answer the earliest failure and pass of tests in uploads, and go with their upload', async () => {
    const store = getStore();
    const bucketUpload = (uploadId: string) => ({
      repoId: 'r1',
      uploadId,
      branch: 'main',
      branchClass: 'main' as const,
      prNumber: null,
      retentionMs: 1000 * 86_400_000,
    });
    const hour = Date.UTC(2026, 2, 2, 10);
    const row = (caseId: string, firstFailureAt: number | null, firstPassAt: number | null) => ({
      caseId,
      hour,
      passed: firstPassAt === null ? 0 : 1,
      failed: firstFailureAt === null ? 0 : 1,
      skipped: 0,
      firstFailureAt,
      lastFailureAt: firstFailureAt,
      lastRunAt: Math.max(firstFailureAt ?? 0, firstPassAt ?? 0),
      firstPassAt,
    });
    await store.buckets.insert(bucketUpload('u1'), 0, [row('r1:a', hour + 10, null), row('r1:b', null, hour + 20)]);
    await store.buckets.insert(bucketUpload('u2'), 0, [row('r1:a', null, hour + 30)]);
    const outcomes = await store.buckets.outcomesIn(['u1', 'u2'], ['r1:a']);
    expect(outcomes.sort((x, y) => (x.firstPassAt ?? 0) - (y.firstPassAt ?? 0))).to.deep.equal([
      { caseId: 'r1:a', firstFailureAt: hour + 10, firstPassAt: null },
      { caseId: 'r1:a', firstFailureAt: null, firstPassAt: hour + 30 },
    ]);
    await store.buckets.deleteByUpload('u1');
    expect(await store.buckets.outcomesIn(['u1'], ['r1:a', 'r1:b'])).to.deep.equal([]);
  });
});
