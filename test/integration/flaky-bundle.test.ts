// The hosted CLI's path end to end: createBundleUpload → PUT of a tar+zstd bundle to the returned
// URL (no API token) → the runs are stored and detected → getQuarantineConfig.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { ORG, REPO, bundle, quarantineConfig, sample, sha, unhealthy, updateSettings, type UploadBody } from './flaky-support.js';

interface Created {
  id: string;
  idV2: string;
  url: string;
  key: string;
}

describe('flaky tests: hosted CLI bundle upload', function () {
  let svc: TestService;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
  });
  afterEach(async () => {
    await svc.close();
  });

  const create = async () => {
    const res = await svc.post<Created>('/metrics/createBundleUpload', {
      repo: REPO,
      orgUrlSlug: ORG,
      clientVersion: 'trunk-analytics-cli cargo=0.10.0 git=abc rustc=1.80',
      remoteUrls: ['https://github.com/acme/widgets.git'],
      externalId: '',
      testCollectionShortId: null,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  const meta = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      version: '1',
      cli_version: 'cargo=0.10.0',
      org: ORG,
      repo: {
        repo: REPO,
        repo_url: 'https://github.com/acme/widgets.git',
        repo_head_sha: sha(77),
        repo_head_branch: 'refs/heads/feature/bundle',
        repo_head_commit_epoch: 1_700_000_000,
      },
      bundle_upload_id: 'x',
      envs: { GITHUB_REF: 'refs/pull/31/merge', GITHUB_HEAD_REF: 'feature/bundle', GITHUB_RUN_ATTEMPT: '2', GITHUB_JOB: 'test' },
      file_sets: [
        {
          file_set_type: 'Junit',
          files: [{ original_path: '/ci/out/gotest.xml', original_path_rel: 'out/gotest.xml', path: 'junit/0', owners: [] }],
          glob: 'out/*.xml',
        },
      ],
      upload_time_epoch: Math.floor(Date.now() / 1000),
      variant: '',
      ...over,
    });

  const put = async (url: string, body: Buffer, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream', ...headers } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as UploadBody & { error: { code: string } }) : null };
  };

  it('hands out a single-use URL on this service and ingests the bundle PUT there without a token', async () => {
    const created = await create();
    expect(created.idV2).to.equal(created.id);
    expect(created.url.startsWith(`${svc.url}/flaky-tests/bundle-uploads/${created.id}?key=`)).to.equal(true);

    const tar = await bundle([
      { name: 'meta.json', data: meta() },
      { name: 'internal.bin', data: Buffer.from([0x0a, 0x00]) },
      { name: 'junit/0', data: sample('flake-factory_gotestsum_rerun-fails.xml') },
      { name: 'junit/1', data: sample('trunk-cli_googletest_junit0_fail.xml') },
      { name: 'CODEOWNERS', data: '* @acme/all\ntrunk/ @acme/trunk\n' },
    ]);
    const res = await put(created.url, tar);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ runs: 4, passed: 1, failed: 3 });
    expect(res.body!.files.map((f) => f.name)).to.deep.equal(['out/gotest.xml', 'junit/1']);
    expect(res.body!.warnings.map((w) => w.code)).to.include('internal-bin-ignored');

    // PR number and branch come from the CI variables the CLI recorded.
    const { tests } = await unhealthy(svc, 'FLAKY');
    const retried = tests.find((t) => t.name === 'TestPassEveryThirdExecution');
    expect(retried?.status.reason).to.equal(`Failed and passed on the same commit ${sha(77).slice(0, 7)} on PR #31`);
    const hello = await svc.post<{ tests: { name: string; codeowners: string[]; pull_requests_impacted_last_7d: number }[] }>(
      '/flaky-tests/list-failing-tests',
      {
        repo: REPO,
        org_url_slug: ORG,
        start_time: new Date(Date.now() - 3_600_000).toISOString(),
        end_time: new Date(Date.now() + 60_000).toISOString(),
        page_query: { page_size: 10 },
      },
    );
    const h = hello.body.tests.find((t) => t.name === 'Hello');
    expect(h?.codeowners).to.deep.equal(['@acme/trunk']);
    expect(h?.pull_requests_impacted_last_7d).to.equal(1);

    // Used once: a second PUT to the same URL is refused.
    const again = await put(created.url, tar);
    expect(again.status).to.equal(404);
    expect(again.body!.error.code).to.equal('upload_url_not_found');
  });

  it('refuses wrong keys, unknown ids and bundles that are not tar+zstd', async () => {
    const created = await create();
    const wrongKey = created.url.replace(/key=.*/, `key=${'A'.repeat(43)}`);
    expect((await put(wrongKey, await bundle([{ name: 'meta.json', data: meta() }]))).status).to.equal(404);
    const unknown = created.url.replace(created.id, '00000000-0000-4000-8000-000000000000');
    expect((await put(unknown, await bundle([{ name: 'meta.json', data: meta() }]))).status).to.equal(404);
    expect((await put(created.url.replace(/\?key=.*/, ''), Buffer.from('x'))).status).to.equal(400);

    const notZstd = await put(created.url, Buffer.from('plain text, not a bundle'));
    expect(notZstd.status).to.equal(400);
    expect(notZstd.body!.error.code).to.equal('bundle_not_zstd');
    // The failed attempt used the URL up.
    expect((await put(created.url, await bundle([{ name: 'meta.json', data: meta() }]))).status).to.equal(404);

    const second = await create();
    const noMeta = await put(second.url, await bundle([{ name: 'junit/0', data: sample('go-junit-report_fail.xml') }]));
    expect(noMeta.status).to.equal(400);
    expect(noMeta.body!.error.code).to.equal('bundle_missing_meta');

    const third = await create();
    const otherRepo = await put(
      third.url,
      await bundle([{ name: 'meta.json', data: meta({ repo: { repo: { host: 'github.com', owner: 'evil', name: 'repo' }, repo_head_sha: sha(1) } }) }]),
    );
    expect(otherRepo.status).to.equal(400);
    expect(otherRepo.body!.error.code).to.equal('bundle_repo_mismatch');
  });

  it('createBundleUpload checks the organisation and its body', async () => {
    const wrong = await svc.post('/metrics/createBundleUpload', { repo: REPO, orgUrlSlug: 'another-org' });
    expect(wrong.status).to.equal(404);
    const bad = await svc.post('/metrics/createBundleUpload', { repo: { host: 'github.com' }, orgUrlSlug: ORG });
    expect(bad.status).to.equal(400);
    const anonymous = await svc.post('/metrics/createBundleUpload', { repo: REPO, orgUrlSlug: ORG }, { token: null });
    expect(anonymous.status).to.equal(401);
  });

  it("quarantine config answers the CLI for the bundle's tests", async () => {
    const created = await create();
    await put(
      created.url,
      await bundle([
        { name: 'meta.json', data: meta({ envs: {}, repo: { repo: REPO, repo_head_sha: sha(5), repo_head_branch: 'main' } }) },
        { name: 'junit/0', data: sample('flake-factory_gotestsum_rerun-fails.xml') },
      ]),
    );
    await updateSettings(svc, { quarantine: { enabled: true, auto_quarantine: true } });
    const { tests } = await unhealthy(svc, 'FLAKY');
    expect(tests.map((t) => t.name)).to.deep.equal(['TestPassEveryThirdExecution']);
    expect(await quarantineConfig(svc)).to.deep.equal({ isDisabled: false, testIds: [tests[0]!.id] });
  });
});
