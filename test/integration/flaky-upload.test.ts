// POST /v1/flaky-tests/upload over real HTTP with real JUnit files from the reference samples:
// counts, gzip, per-file problems, validation, organisation checks.
import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { collectJUnit } from '../../shared/flaky-tests/formats/junit/index.js';
import { testId } from '../../shared/flaky-tests/domain/test-identity.js';
import { expectDescribedAnswer, type ServiceDoc } from '../helpers/openapi.js';
import { ORG, REPO, SAMPLES_DIR, call, junit, sample, sha, upload, uploadOk, type WireTest } from './flaky-support.js';

describe('flaky tests: native upload', function () {
  let svc: TestService;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
  });
  afterEach(async () => {
    await svc.close();
  });

  it("stores every reference sample in one upload with the parser's counts", async () => {
    const files = readdirSync(SAMPLES_DIR)
      .filter((f) => f.endsWith('.xml'))
      .sort();
    expect(files.length).to.be.greaterThan(30);
    const expected = { runs: 0, passed: 0, failed: 0, skipped: 0 };
    for (const f of files) {
      const { runs } = await collectJUnit(
        (async function* () {
          yield sample(f);
        })(),
      );
      expected.runs += runs.length;
      for (const r of runs) expected[r.outcome]++;
    }
    const body = await uploadOk(svc, { branch: 'feature/x' }, files);
    expect({ runs: body.runs, passed: body.passed, failed: body.failed, skipped: body.skipped }).to.deep.equal(expected);
    expect(body.files.map((f) => f.name)).to.deep.equal(files);
    for (const f of body.files) expect(f.errors, f.name).to.deep.equal([]);
    expect(body.excluded_from_detection).to.equal(false);
    expect(body.upload_id).to.match(/^[0-9a-f-]{36}$/);
  });

  it('reads gzip-compressed reports', async () => {
    const body = await uploadOk(svc, {}, [{ name: 'go-junit-report_fail.xml', data: sample('go-junit-report_fail.xml'), gzip: true }]);
    expect(body.files[0]).to.deep.include({ name: 'go-junit-report_fail.xml.gz', compressed: true, runs: 2, passed: 1, failed: 1 });
  });

  it('reports a file that is not JUnit and still stores the others', async () => {
    const body = await uploadOk(svc, {}, [
      { name: 'build.log', data: 'npm ERR! something went wrong\n' },
      'go-junit-report_fail.xml',
      { name: 'other.xml', data: '<?xml version="1.0"?><project><dependency/></project>' },
    ]);
    expect(body.runs).to.equal(2);
    expect(body.files[0]!.errors.map((e) => e.code)).to.deep.equal(['not-xml']);
    expect(body.files[1]!.errors).to.deep.equal([]);
    expect(body.files[2]!.errors.map((e) => e.code)).to.deep.equal(['not-junit']);
    const { tests } = await call<{ tests: WireTest[] }>(svc, '/flaky-tests/list-failing-tests', {
      repo: REPO,
      org_url_slug: ORG,
      start_time: new Date(Date.now() - 3_600_000).toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
      page_query: { page_size: 10 },
    });
    expect(tests.map((t) => t.name)).to.deep.equal(['TestOne']);
  });

  it('answers 400 when no file is a usable report', async () => {
    const res = await upload(svc, {}, [{ name: 'a.txt', data: 'hello' }]);
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('no_junit_results');
    expect(res.body.error.message).to.contain('a.txt');
  });

  it('validates the meta part and the order of parts', async () => {
    const missing = await upload(svc, null, ['go-junit-report_fail.xml']);
    expect(missing.status).to.equal(400);
    expect(missing.body.error.code).to.equal('meta_must_come_first');

    const late = await upload(svc, {}, ['go-junit-report_fail.xml'], { metaLast: true });
    expect(late.body.error.code).to.equal('meta_must_come_first');

    const noFiles = await upload(svc, {}, []);
    expect(noFiles.status).to.equal(400);
    expect(noFiles.body.error.code).to.equal('missing_junit');

    const badSha = await upload(svc, { commit_sha: 'not-a-sha' }, ['go-junit-report_fail.xml']);
    expect(badSha.status).to.equal(400);
    expect(badSha.body.error.details[0]!.path).to.equal('/commit_sha');

    const injected = await upload(svc, { branch: { $gt: '' } as unknown as string }, ['go-junit-report_fail.xml']);
    expect(injected.status).to.equal(400);
    expect(injected.body.error.details[0]!.path).to.equal('/branch');

    const unknownField = await upload(svc, { colour: 'red' }, ['go-junit-report_fail.xml']);
    expect(unknownField.status).to.equal(400);
    expect(unknownField.body.error.details[0]!.path).to.equal('/colour');

    const notMultipart = await svc.post<{ error: { code: string } }>('/flaky-tests/upload', { meta: {} });
    expect(notMultipart.status).to.equal(400);
    expect(notMultipart.body.error.code).to.equal('expected_multipart');
  });

  it("belongs to the token's organisation: another slug is a 404, no token a 401", async () => {
    const other = await upload(svc, { org_url_slug: 'someone-else' }, ['go-junit-report_fail.xml']);
    expect(other.status).to.equal(404);
    expect(other.body.error.code).to.equal('organization_not_found');

    const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, { method: 'POST', body: new FormData() });
    expect(res.status).to.equal(401);
  });

  it("gives tests the hosted product's ids (org, repo, file, classname, suite, name, variant)", async () => {
    await uploadOk(svc, { variant: 'linux', commit_sha: sha(7) }, ['trunk-cli_googletest_junit0_fail.xml']);
    const end = new Date(Date.now() + 60_000);
    const { tests } = await call<{ tests: WireTest[] }>(svc, '/flaky-tests/list-failing-tests', {
      repo: REPO,
      org_url_slug: ORG,
      start_time: new Date(end.getTime() - 86_400_000).toISOString(),
      end_time: end.toISOString(),
      page_query: { page_size: 10 },
    });
    const expected = testId({
      orgUrlSlug: ORG,
      repoFullName: 'github.com/acme/widgets',
      file: 'trunk/hello_world/cc/hello_test.cc',
      classname: 'HelloTest',
      parent: 'HelloTest',
      name: 'Hello',
      variant: 'linux',
    });
    expect(tests.map((t) => [t.id, t.variant])).to.deep.equal([[expected, 'linux']]);
  });

  it('assigns codeowners from an uploaded CODEOWNERS (last match wins)', async () => {
    const codeowners = ['* @acme/everyone', 'trunk/ @acme/trunk', 'trunk/hello_world/cc/*.cc @acme/cpp'].join('\n');
    await uploadOk(svc, {}, ['trunk-cli_googletest_junit0_fail.xml'], { codeowners });
    const { tests } = await call<{ tests: WireTest[] }>(svc, '/flaky-tests/list-unhealthy-tests', {
      repo: REPO,
      org_url_slug: ORG,
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(tests[0]!.codeowners).to.deep.equal(['@acme/cpp']);
  });

  it('answers 202 with a status URL when the work is not done in time; the status follows the job', async () => {
    const slow = await startTestService({ env: { FLAKY_UPLOAD_WAIT_SECONDS: '1' } });
    try {
      const accepted = await upload(slow, {}, ['go-junit-report_fail.xml']);
      expect(accepted.status).to.equal(202);
      const { upload_id: uploadId, status_url: statusUrl } = accepted.body as unknown as { upload_id: string; status_url: string };
      expect(statusUrl).to.equal(`${slow.url}/v1/flaky-tests/upload-status?upload_id=${uploadId}`);
      const doc = (await slow.raw('GET', '/v1/openapi.json')).body as unknown as ServiceDoc;
      expectDescribedAnswer(doc, 'POST', '/v1/flaky-tests/upload', 'application/json', accepted.body, 202);
      const refused = await upload(slow, {}, [{ name: 'a.txt', data: 'hello' }]);
      expect(refused.status).to.equal(202);
      const status = async (id: string) => {
        const res = await slow.raw('GET', `/v1/flaky-tests/upload-status?upload_id=${id}`, { headers: { 'x-api-token': slow.token } });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body as { state: string; result: { runs: number } | null; error: { code: string } | null };
      };
      expect((await status(uploadId)).state).to.equal('queued');
      const { startWorkers } = await import('../../workers/main.js');
      await startWorkers(slow.ctx);
      const done = await waitFor('the upload processed', async () => {
        const s = await status(uploadId);
        return s.state === 'complete' ? s : null;
      });
      expect(done.result?.runs).to.equal(2);
      const failed = await waitFor('the refused upload', async () => {
        const s = await status((refused.body as unknown as { upload_id: string }).upload_id);
        return s.state === 'failed' ? s : null;
      });
      expect(failed.error?.code).to.equal('no_junit_results');
      // Another organisation's token learns nothing about the upload.
      const other = await slow.addOrg('acme-other');
      const hidden = await slow.raw('GET', `/v1/flaky-tests/upload-status?upload_id=${uploadId}`, { headers: { 'x-api-token': other.token } });
      expect(hidden.status).to.equal(404);
    } finally {
      await slow.close();
    }
  });

  it('refuses an upload over FLAKY_MAX_UPLOAD_MB with 413', async () => {
    const small = await startTestService({ startWorkers: true, env: { FLAKY_MAX_UPLOAD_MB: '1' } });
    try {
      const big = junit(Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`test_${i}_${'x'.repeat(40)}`, 'p'])));
      expect(big.length).to.be.greaterThan(1024 * 1024);
      const res = await upload(small, {}, [{ name: 'big.xml', data: big }]);
      expect(res.status).to.equal(413);
      expect(res.body.error.code).to.equal('upload_too_large');
      // Nothing of the refused upload is visible.
      const listed = await small.post<{ error: { code: string } }>('/flaky-tests/list-unhealthy-tests', {
        repo: REPO,
        org_url_slug: ORG,
        status: 'FLAKY',
        page_query: { page_size: 1 },
      });
      expect([200, 404]).to.include(listed.status);
    } finally {
      await small.close();
    }
  });
});
