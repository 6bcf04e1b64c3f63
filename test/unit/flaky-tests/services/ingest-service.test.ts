// The ingest use case over in-memory repositories: what the API stores and asks for, what the
// flaky-ingest job writes, refusals, and an attempt that dies mid-upload run again.
import { expect } from 'chai';
import type { IngestService, UploadPart } from '../../../../shared/flaky-tests/services/ingest-service.js';
import { bundle, junit } from '../../../integration/flaky-support.js';
import { newIngestService, ORG, type IngestFakes } from './ingest-fakes.js';
import type { TestRunLinks } from '../../../../shared/flaky-tests/services/test-run-links.js';
import type { BundleUpload, UploadMeta } from '../../../../shared/flaky-tests/domain/model.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const SHA = 'a'.repeat(40);

const meta = (over: Partial<UploadMeta> = {}): UploadMeta => ({
  repo: REPO,
  orgUrlSlug: ORG.slug,
  sha: SHA,
  branch: 'main',
  prNumber: null,
  variant: '',
  jobName: null,
  jobUrl: null,
  ciAttempt: null,
  startedAt: null,
  ...over,
});

async function* parts(...reports: { name: string; xml: string }[]): AsyncGenerator<UploadPart> {
  for (const r of reports)
    yield {
      kind: 'report',
      name: r.name,
      bytes: (async function* () {
        yield r.xml;
      })(),
    };
}

describe('IngestService', () => {
  let sut: IngestService;
  let fakes: IngestFakes;

  beforeEach(() => {
    ({ sut, fakes } = newIngestService());
  });

  const upload = (m: UploadMeta, ...reports: { name: string; xml: string }[]) =>
    sut.ingestUpload({ source: 'native', orgId: ORG.id, meta: m, parts: parts(...reports) }, 0);

  it("stores the reports as blobs and a queued upload, and asks for the repository's job", async () => {
    const answer = await upload(meta(), { name: 'a.xml', xml: junit({ t1: 'p', t2: 'f' }) }, { name: 'b.xml', xml: junit({ t3: 'p' }) });
    expect(answer.state).to.equal('pending');
    const uploadId = answer.state === 'pending' ? answer.uploadId : '';
    expect([...fakes.blobs.blobs.keys()]).to.deep.equal([`${uploadId}/0`, `${uploadId}/1`]);
    const [repo] = [...fakes.store.repoDocs.values()];
    expect(fakes.jobs).to.deep.equal([{ repoId: repo!.id, uploadId }]);
    expect(await sut.status(ORG.id, uploadId)).to.deep.include({ state: 'queued', result: null, refusal: null });
    expect(fakes.store.caseRunDocs.size).to.equal(0);
  });

  it('an upload processed in the same process answers its waiting call at once, without another poll', async () => {
    // Polls never come back: only the wake-up of the process that recorded the outcome can answer.
    const { sut: waiting, fakes: m } = newIngestService({ sleep: () => new Promise<void>(() => undefined) });
    const answer = waiting.ingestUpload({ source: 'native', orgId: ORG.id, meta: meta(), parts: parts({ name: 'a.xml', xml: junit({ t1: 'p' }) }) }, 60_000);
    while (m.jobs.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await waiting.processRepository(m.jobs[0]!.repoId);
    const done = await answer;
    expect(done.state).to.equal('complete');
    expect(done.state === 'complete' ? done.result.counts.runs : 0).to.equal(1);
  });

  it('the job stores test case runs keyed by (upload, index), the tests and their counters', async () => {
    const answer = await upload(meta(), { name: 'a.xml', xml: junit({ t1: 'p', t2: 'fp' }) });
    const uploadId = answer.state === 'pending' ? answer.uploadId : '';
    expect(await sut.processRepository(fakes.jobs[0]!.repoId)).to.equal(1);
    const status = await sut.status(ORG.id, uploadId);
    expect(status.state).to.equal('complete');
    expect(status.result?.counts).to.deep.include({ runs: 3, passed: 2, failed: 1, tests: 2, testsFailed: 0 });
    expect([...fakes.store.caseRunDocs.keys()].sort()).to.deep.equal([0, 1, 2].map((i) => `${uploadId}:${i}`));
    expect(fakes.store.testDocs.size).to.equal(2);
    expect(fakes.store.uploadDocs.get(uploadId)?.state).to.equal('complete');
    expect(fakes.store.detectionDocs.size, 'pass-on-retry of t2').to.equal(1);
    expect(fakes.evaluated.flat()).to.have.length(2);
    expect(fakes.blobs.blobs.size, 'blobs are deleted once stored').to.equal(0);
  });

  it('an attempt that dies mid-upload is run again from the blobs, without duplicates or leftovers', async () => {
    const tests = Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`t${i}`, 'p']));
    const answer = await upload(meta(), { name: 'big.xml', xml: junit(tests) });
    const uploadId = answer.state === 'pending' ? answer.uploadId : '';
    fakes.store.failNextCaseRunInsert = true;
    const repoId = fakes.jobs[0]!.repoId;
    let died: unknown = null;
    await sut.processRepository(repoId).catch((err: unknown) => (died = err));
    expect((died as Error | null)?.message).to.equal('connection lost');
    expect((await sut.status(ORG.id, uploadId)).state).to.equal('processing');
    expect(fakes.store.caseRunDocs.size, 'the dead attempt left part of a batch').to.be.greaterThan(0);

    await sut.processRepository(repoId);
    const status = await sut.status(ORG.id, uploadId);
    expect(status.state).to.equal('complete');
    expect(status.result?.counts.runs).to.equal(800);
    expect(fakes.store.caseRunDocs.size).to.equal(800);
    expect(fakes.store.receivedDocs.get(uploadId)?.attempts).to.equal(2);
  });

  it('processes the uploads of a repository oldest first: a retry on the same commit is pass-on-retry', async () => {
    let now = Date.parse('2026-03-02T10:00:00Z');
    ({ sut, fakes } = newIngestService({ now: () => new Date(now) }));
    await upload(meta(), { name: 'first.xml', xml: junit({ t: 'f', u: 'p' }) });
    now += 60_000;
    await upload(meta(), { name: 'retry.xml', xml: junit({ t: 'p', u: 'p' }) });
    expect(await sut.processRepository(fakes.jobs[0]!.repoId)).to.equal(2);
    expect([...fakes.store.detectionDocs.keys()].map((k) => k.split('|')[0]!.split(':')[1])).to.have.length(1);
  });

  it('links an upload of a test branch head to its test run; a re-test (new commit, same tree) is pass-on-retry', async () => {
    let now = Date.parse('2026-03-02T10:00:00Z');
    const heads: Record<string, { testRunId: string; queueId: string; tree: string }> = {
      ['b'.repeat(40)]: { testRunId: 'run-1', queueId: 'q1', tree: 'c'.repeat(40) },
      ['d'.repeat(40)]: { testRunId: 'run-2', queueId: 'q1', tree: 'c'.repeat(40) },
    };
    const asked: { orgId: string; sha: string }[] = [];
    const stored: string[] = [];
    const branchResults: string[] = [];
    const links: TestRunLinks = {
      find: async (orgId, repo, sha) => {
        asked.push({ orgId, sha });
        expect(repo).to.deep.equal(REPO);
        return heads[sha] ?? null;
      },
      resultsStored: async (link) => void stored.push(link.testRunId),
      branchResultsStored: async (_orgId, _repo, branch, sha) => void branchResults.push(`${branch}@${sha.slice(0, 1)}`),
    };
    ({ sut, fakes } = newIngestService({ now: () => new Date(now), links }));
    const branch = 'trunk-merge/pr-1/run';
    await upload(meta({ sha: 'b'.repeat(40), branch }), { name: 'first.xml', xml: junit({ t: 'f', u: 'p' }) });
    now += 60_000;
    await upload(meta({ sha: 'd'.repeat(40), branch }), { name: 'retest.xml', xml: junit({ t: 'p', u: 'p' }) });
    now += 60_000;
    await upload(meta({ sha: 'e'.repeat(40) }), { name: 'other.xml', xml: junit({ t: 'p' }) });
    expect(await sut.processRepository(fakes.jobs[0]!.repoId)).to.equal(3);
    expect(asked.map((a) => [a.orgId, a.sha[0]])).to.deep.equal([
      [ORG.id, 'b'],
      [ORG.id, 'd'],
      [ORG.id, 'e'],
    ]);
    expect([...fakes.store.uploadDocs.values()].map((u) => [u.testRunId, u.tree])).to.deep.equal([
      ['run-1', 'c'.repeat(40)],
      ['run-2', 'c'.repeat(40)],
      [null, null],
    ]);
    expect(stored).to.deep.equal(['run-1', 'run-2']);
    // The unlinked commit's results are announced for its branch (a queue's target may be broken).
    expect(branchResults).to.deep.equal([`${meta().branch}@e`]);
    expect([...fakes.store.detectionDocs.keys()].map((k) => k.split('|')[1])).to.deep.equal(['d'.repeat(40)]);
  });

  it('without a shared tree, a failure and a pass on two commits are not pass-on-retry', async () => {
    await upload(meta({ sha: 'b'.repeat(40) }), { name: 'first.xml', xml: junit({ t: 'f' }) });
    await upload(meta({ sha: 'd'.repeat(40) }), { name: 'second.xml', xml: junit({ t: 'p' }) });
    expect(await sut.processRepository(fakes.jobs[0]!.repoId)).to.equal(2);
    expect(fakes.store.detectionDocs.size).to.equal(0);
  });

  it('refuses an upload whose reports hold no result: failed with no_junit_results, nothing stored', async () => {
    const answer = await upload(meta(), { name: 'a.txt', xml: 'hello' });
    const uploadId = answer.state === 'pending' ? answer.uploadId : '';
    await sut.processRepository(fakes.jobs[0]!.repoId);
    const status = await sut.status(ORG.id, uploadId);
    expect(status.state).to.equal('failed');
    expect(status.refusal?.code).to.equal('no_junit_results');
    expect(fakes.store.caseRunDocs.size).to.equal(0);
  });

  it('refuses an upload without a report at once: missing_junit, nothing kept', async () => {
    const err = await upload(meta()).then(
      () => null,
      (e: unknown) => e as { code: string },
    );
    expect(err?.code).to.equal('missing_junit');
    expect(fakes.blobs.blobs.size + fakes.store.receivedDocs.size + fakes.jobs.length).to.equal(0);
  });

  it("refuses another organisation's slug before storing anything", async () => {
    const err = await upload(meta({ orgUrlSlug: 'someone-else' }), { name: 'a.xml', xml: junit({ t: 'p' }) }).then(
      () => null,
      (e: unknown) => e as { code: string },
    );
    expect(err?.code).to.equal('organization_not_found');
    expect(fakes.blobs.blobs.size + fakes.store.receivedDocs.size + fakes.jobs.length).to.equal(0);
  });

  it('refuses a CLI bundle without a JUnit report as the native upload does: no_junit_results', async () => {
    const claim: BundleUpload = {
      id: 'b-1',
      orgId: ORG.id,
      orgSlug: ORG.slug,
      repo: REPO,
      clientVersion: null,
      state: 'receiving',
      createdAt: new Date(),
      expiresAt: new Date(),
      uploadId: null,
      error: null,
    };
    const body = await bundle([
      { name: 'meta.json', data: JSON.stringify({ org: ORG.slug, repo: { repo: REPO, repo_head_sha: SHA, repo_head_branch: 'main' } }) },
    ]);
    const answer = await sut.ingestUpload(
      {
        source: 'bundle',
        claim,
        body: (async function* () {
          yield body;
        })(),
      },
      0,
    );
    const uploadId = answer.state === 'pending' ? answer.uploadId : '';
    await sut.processRepository(fakes.jobs[0]!.repoId);
    expect((await sut.status(ORG.id, uploadId)).refusal?.code).to.equal('no_junit_results');
    expect(fakes.store.bundleStates.get('b-1')).to.equal('failed');
  });

  it('asks again for uploads left waiting without a job', async () => {
    let now = Date.parse('2026-03-02T10:00:00Z');
    ({ sut, fakes } = newIngestService({ now: () => new Date(now) }));
    await upload(meta(), { name: 'a.xml', xml: junit({ t: 'p' }) });
    fakes.jobs.length = 0;
    expect(await sut.requestWaiting()).to.equal(0);
    now += 5 * 60_000;
    expect(await sut.requestWaiting()).to.equal(1);
    expect(fakes.jobs).to.have.length(1);
  });
});
