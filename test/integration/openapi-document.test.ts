// GET /v1/openapi.json describes this service (issue 10 §7): it is valid OpenAPI 3.1, it names
// every route the application registers (and nothing else), and every described 200 answer is
// what the service really answers — each operation is called over HTTP on a service with data.
import { startActionsIssuer, type ActionsIssuer } from '../doubles/github/actions-oidc-issuer.js';
import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { sign } from '@octokit/webhooks-methods';
import type Router from '@koa/router';
import { startTestService, type ApiResponse, type TestService } from '../../scripts/lib/test-service.js';
import { createApp } from '../../api/app.js';
import { appDepsOf } from '../../api/server.js';
import { OPERATIONS } from '../../api/openapi/operations.js';
import { expectDescribedAnswer, type ServiceDoc } from '../helpers/openapi.js';
import { CI, makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { ORG, REPO, bundle, failingTestId, junit, sha, uploadOk } from './flaky-support.js';
import { createRepo, makeGitRoot, pushToBranch, removeGitRoot } from '../../scripts/lib/git-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';
import { LOOPBACK_RECEIVERS_ALLOWED } from '../helpers/webhook-receiver.js';
import { ensureWebBuild } from '../../scripts/lib/web-build.mjs';

const WEBHOOK_SECRET = 'described-webhook-secret';

/** A GitHub Enterprise host played by the double: github.com repositories stay local ones here. */
const GHE_REPO = { host: 'ghe.example.com', owner: 'acme', name: 'gadgets' };

/** `METHOD /path` of every route of the router, parameters as `{name}`. */
const routesOf = (router: Router): string[] =>
  router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
  );

/** The application's routers: the API's, and the browser's sign-in flow under /auth/ (no API operation). */
function routers(svc: TestService): { api: Router[]; signIn: Router[] } {
  const app = createApp(appDepsOf(svc.ctx));
  // @koa/router's routes() middleware carries its router.
  const all = app.middleware.flatMap((m) => (m as { router?: Router }).router ?? []);
  const underAuth = (r: Router) => routesOf(r).every((route) => route.split(' ')[1]?.startsWith('/auth/'));
  return { api: all.filter((r) => !underAuth(r)), signIn: all.filter(underAuth) };
}

function registeredRoutes(svc: TestService): string[] {
  const { api } = routers(svc);
  expect(api.length, 'one router in the middleware stack serves every operation').to.equal(1);
  return api.flatMap(routesOf);
}

function describedOperations(doc: ServiceDoc): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
}

describe('OpenAPI description of this service', function () {
  this.timeout(60_000);
  let svc: TestService;

  it('leaves out only the browser sign-in flow, which is no API operation (docs/dashboard.md)', () => {
    const { signIn } = routers(svc);
    expect(signIn.flatMap(routesOf).sort()).to.deep.equal([
      'GET /auth/github/callback',
      'GET /auth/github/start',
      'GET /auth/methods',
      'GET /auth/oidc/callback',
      'GET /auth/oidc/start',
      'GET /auth/session',
      'POST /auth/cli/grant',
      'POST /auth/cli/token',
      'POST /auth/sign-out',
    ]);
  });
  let doc: ServiceDoc;
  let ghRoot: string;
  let double: GitHubDouble;
  let actions: ActionsIssuer;

  before(async function () {
    // The reference page's files come from the dashboard's build.
    this.timeout(180_000);
    await ensureWebBuild({ quiet: true });
    ghRoot = await makeGitRoot();
    double = await startGitHubDouble(ghRoot, { host: GHE_REPO.host });
    await createRepo(ghRoot, { repo: GHE_REPO });
    actions = await startActionsIssuer();
    svc = await startTestService({
      ...SERVICE_OPTIONS,
      env: {
        ...SERVICE_OPTIONS.env,
        ...double.appEnv,
        ...LOOPBACK_RECEIVERS_ALLOWED,
        GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
        GITHUB_WEBHOOK_POLL_SECONDS: '3600',
        GITHUB_ACTIONS_OIDC_ISSUER: actions.url,
      },
    });
    const res = await svc.raw('GET', '/v1/openapi.json');
    expect(res.status).to.equal(200);
    doc = res.body as ServiceDoc;
  });
  after(async () => {
    await svc.close();
    await actions.close();
    await double.close();
    await removeGitRoot(ghRoot);
  });

  it('is served without a token and is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 3000)).to.equal(true);
    expect((doc as unknown as { openapi: string }).openapi).to.equal('3.1.0');
  });

  it('describes every registered route, and only those', () => {
    const registered = new Set(registeredRoutes(svc));
    const described = new Set(describedOperations(doc));
    expect(
      [...registered].filter((r) => !described.has(r)),
      'registered but not described',
    ).to.deep.equal([]);
    expect(
      [...described].filter((d) => !registered.has(d)),
      'described but not registered',
    ).to.deep.equal([]);
  });

  it('describes each operation once (one table row per method and path, one operation id each)', () => {
    const count = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);
    expect(count(OPERATIONS.map((op) => `${op.method} ${op.path}`)), 'method and path described twice').to.deep.equal([]);
    expect(count(OPERATIONS.map((op) => op.operationId)), 'operation id used twice').to.deep.equal([]);
  });

  it('serves the reference page and its script from this service', async () => {
    const page = await svc.raw('GET', '/v1/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const scripts = [...(page.body as string).matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).to.deep.equal(['/v1/docs/api-reference.js']);
    const styles = [...(page.body as string).matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(styles).to.deep.equal(['/v1/docs/api-reference.css']);
    expect((await svc.raw('GET', styles[0]!)).headers.get('content-type')).to.match(/^text\/css/);
    expect(page.body as string).to.include('/v1/openapi.json');
    expect(page.body as string, 'no resource from elsewhere').not.to.match(/(src|href)="https?:/);
    const script = await svc.raw('GET', scripts[0]!);
    expect(script.status).to.equal(200);
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
    expect((script.body as string).length).to.be.greaterThan(100_000);
  });

  it('every described 200 answer is what the service answers', async () => {
    const q: PrQueue = await makeQueue(svc);
    const { ref } = q;
    const token = { 'x-api-token': svc.token };
    const json = { ...token, 'content-type': 'application/json' };
    const calls = new Map<string, () => Promise<ApiResponse>>();
    const post = (path: string, body: unknown) => calls.set(`POST ${path}`, () => svc.raw('POST', path, { body: JSON.stringify(body), headers: json }));

    // Data: #1 under test with impacted targets and a CI status, #2 waiting, a failing flaky test.
    await q.pr(1);
    await q.pr(2);
    await pushToBranch(q.fx, 'release', [{ message: 'Release', files: { 'release.txt': '1\n' } }], { from: q.fx.initialSha });
    await q.submitOk(1);
    const run = await q.runOf(1);
    const entry = await q.entry(1);
    const testId = await failingTestId(svc, { a: 'f', b: 'p' });
    const flakyRepo = { repo: REPO, org_url_slug: ORG };
    const stored = await uploadOk(svc, { branch: 'main', commit_sha: sha(4) }, [{ name: 'r.xml', data: junit({ a: 'p' }) }]);
    calls.set('GET /v1/flaky-tests/upload-status', () => svc.raw('GET', `/v1/flaky-tests/upload-status?upload_id=${stored.upload_id}`, { headers: token }));

    post('/v1/submitPullRequest', { ...ref, pr: { number: 2 } });
    post('/v1/setImpactedTargets', { ...ref, pr: { number: 1, sha: entry.prSha }, impactedTargets: ['//app:test'] });
    post('/v1/setCommitStatus', { repo: ref.repo, sha: run.sha, context: CI, state: 'PENDING', targetUrl: 'https://ci.example/1' });
    post('/v1/getMergeQueueTestingDetails', { ...ref, testRunId: run.id });
    post('/v1/getSubmittedPullRequest', { ...ref, pr: { number: 1 }, includeTimeline: true });
    post('/v1/getQueue', ref);
    post('/v1/getMergeWindowForecast', ref);
    post('/v1/simulateQueue', { ...ref, days: 1, candidates: [{ concurrency: 2 }], goal: { kind: 'lowest_latency' } });
    post('/v1/listPullRequests', { ...ref, take: 1 });
    post('/v1/updateQueue', { ...ref, batchingMinSize: 2, digest: { cadence: 'daily' } });
    post('/v1/getQueueDigest', ref);
    post('/v1/restartTestsOnPullRequest', { ...ref, pr: { number: 1 } });
    post('/v1/cancelPullRequest', { ...ref, pr: { number: 2 } });
    post('/v1/createQueue', { repo: ref.repo, targetBranch: 'release' });
    post('/v1/deleteQueue', { repo: ref.repo, targetBranch: 'release' });
    calls.set('GET /v1/getMergeQueueMetrics', () =>
      svc.raw('GET', `/v1/getMergeQueueMetrics?repo=${ref.repo.owner}/${ref.repo.name}&repoHost=${ref.repo.host}`, { headers: token }),
    );

    post('/v1/getTokenInfo', {});
    post('/v1/listQueues', {});
    post('/v1/listTestRuns', ref);
    post('/v1/getQueueHealth', { ...ref, windowHours: 2, buckets: 4 });
    // The GitHub repository is claimed by the organisation that creates its first queue.
    expect((await svc.post('/createQueue', { repo: GHE_REPO, targetBranch: 'main' })).status).to.equal(200);
    post('/v1/getGitHubRepository', { repo: GHE_REPO });
    const runToken = await actions.issue({ repository: `${GHE_REPO.owner}/${GHE_REPO.name}`, event_name: 'push', audience: 'openmq' });
    calls.set('POST /v1/githubActionsLogin', () => svc.post('/githubActionsLogin', { token: runToken }, { token: null }));
    post('/v1/updateGitHubRepository', { repo: GHE_REPO, allowForkPullRequests: true });
    post('/v1/getQueueCostReport', { ...ref, since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' });
    post('/v1/verifyCommit', { repo: ref.repo, sha: q.fx.initialSha });
    post('/v1/flaky-tests/get-test-history', { ...flakyRepo, test_id: testId, days: 3 });
    post('/v1/flaky-tests/get-repo-settings', flakyRepo);
    post('/v1/flaky-tests/update-repo-settings', {
      ...flakyRepo,
      quarantine: { enabled: true },
      ticket_url_template: 'https://tickets.example/{ticket}',
      reason: 'described',
    });
    post('/v1/flaky-tests/set-quarantine-override', { ...flakyRepo, test_id: testId, override: 'ALWAYS_QUARANTINE', reason: 'described' });
    post('/v1/flaky-tests/get-quarantine-override', { ...flakyRepo, test_id: testId });
    post('/v1/flaky-tests/link-ticket-to-test-case', { repo: REPO, test_case_id: testId, external_ticket_id: 'OPS-1' });
    post('/v1/flaky-tests/list-failing-tests', {
      ...flakyRepo,
      page_query: { page_size: 10 },
      start_time: new Date(Date.now() - 3_600_000).toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
    });
    post('/v1/flaky-tests/list-unhealthy-tests', { ...flakyRepo, page_query: { page_size: 10 }, status: 'BROKEN' });
    post('/v1/flaky-tests/list-quarantined-tests', { ...flakyRepo, page_query: { page_size: 10 } });
    post('/v1/flaky-tests/get-test-details', { ...flakyRepo, test_id: testId });
    post('/v1/metrics/getQuarantineConfig', { repo: REPO, orgUrlSlug: ORG, remoteUrls: [] });
    calls.set('POST /v1/flaky-tests/upload', async () => {
      const fd = new FormData();
      fd.append('meta', JSON.stringify({ repo: REPO, org_url_slug: ORG, commit_sha: sha(2), branch: 'main', started_at: new Date().toISOString() }));
      fd.append('junit', new Blob([junit({ a: 'p' })]), 'r.xml');
      const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, { method: 'POST', body: fd, headers: token });
      return { status: res.status, headers: res.headers, body: JSON.parse(await res.text()) as unknown };
    });
    let bundleUrl = '';
    calls.set('POST /v1/metrics/createBundleUpload', async () => {
      const res = await svc.post<{ url: string }>('/metrics/createBundleUpload', { repo: REPO, orgUrlSlug: ORG, clientVersion: 'cli 0.10' });
      bundleUrl = res.body.url;
      return res;
    });
    calls.set('PUT /flaky-tests/bundle-uploads/{id}', async () => {
      const meta = {
        version: '1',
        org: ORG,
        repo: { repo: REPO, repo_head_sha: sha(3), repo_head_branch: 'refs/heads/main' },
        file_sets: [{ file_set_type: 'Junit', files: [{ original_path: 'r.xml', path: 'junit/0', owners: [] }] }],
      };
      const body = await bundle([
        { name: 'meta.json', data: JSON.stringify(meta) },
        { name: 'junit/0', data: junit({ a: 'p' }) },
      ]);
      const res = await fetch(bundleUrl, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });
      return { status: res.status, headers: res.headers, body: JSON.parse(await res.text()) as unknown };
    });
    let tokenId = '';
    calls.set('POST /v1/createToken', async () => {
      const res = await svc.post<{ id: string }>('/createToken', { name: 'described', role: 'read' });
      tokenId = res.body.id;
      return res;
    });
    post('/v1/listTokens', {});
    calls.set('POST /v1/revokeToken', () => svc.post('/revokeToken', { id: tokenId }));
    let keyId = '';
    calls.set('POST /v1/createApiKey', async () => {
      const res = await svc.post<{ id: string }>('/createApiKey', { name: 'described', permissions: ['merge_and_cancel'] });
      keyId = res.body.id;
      return res;
    });
    post('/v1/listApiKeys', {});
    calls.set('POST /v1/revokeApiKey', () => svc.post('/revokeApiKey', { id: keyId }));
    // A person's own tokens need a person: a dashboard session, as a sign-in ends.
    const { secret, session } = await svc.ctx.signIn.signIn.finish({
      person: { personId: 'oidc:described', provider: 'oidc', subject: 'described', login: null, name: 'Described Person', email: null },
      role: 'write',
      next: '/',
    });
    const asPerson = (path: string, body: unknown) =>
      svc.raw('POST', path, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', cookie: `openmq_session=${secret}`, 'x-csrf-token': session.csrfToken },
      });
    let personalId = '';
    calls.set('POST /v1/createPersonalToken', async () => {
      const res = await asPerson('/v1/createPersonalToken', { name: 'laptop', role: 'read' });
      personalId = (res.body as { id: string }).id;
      return res;
    });
    calls.set('POST /v1/listPersonalTokens', () => asPerson('/v1/listPersonalTokens', {}));
    calls.set('POST /v1/revokePersonalToken', () => asPerson('/v1/revokePersonalToken', { id: personalId }));
    post('/v1/listAuditEvents', { limit: 10 });
    let endpointId = '';
    calls.set('POST /v1/createWebhookEndpoint', async () => {
      const res = await svc.post<{ id: string }>('/createWebhookEndpoint', {
        url: 'http://127.0.0.1:9/hook',
        kind: 'slack',
        events: ['pull_request.merged'],
        description: 'described',
      });
      endpointId = res.body.id;
      return res;
    });
    post('/v1/listWebhookEndpoints', {});
    calls.set('POST /v1/updateWebhookEndpoint', () => svc.post('/updateWebhookEndpoint', { id: endpointId, description: 'changed' }));
    calls.set('POST /v1/rotateWebhookSecret', () => svc.post('/rotateWebhookSecret', { id: endpointId }));
    calls.set('POST /v1/listWebhookDeliveries', () => svc.post('/listWebhookDeliveries', { endpointId }));
    calls.set('POST /v1/redeliverWebhook', async () => {
      const [delivery] = await svc.ctx.events.store.deliveries.createAll([
        { orgId: svc.orgId, endpointId, eventId: 'described-event', type: 'pull_request.merged', orderKey: 'pr:q:1', order: { at: new Date(), version: 1 } },
      ]);
      return svc.post('/redeliverWebhook', { deliveryId: delivery!.id });
    });
    calls.set('POST /v1/deleteWebhookEndpoint', () => svc.post('/deleteWebhookEndpoint', { id: endpointId }));
    calls.set('POST /webhooks/github', async () => {
      const body = JSON.stringify({ zen: 'Described.', hook_id: 1 });
      const headers = {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-github-delivery': 'described-delivery',
        'x-hub-signature-256': await sign(WEBHOOK_SECRET, body),
      };
      const first = await svc.raw('POST', '/webhooks/github', { body, headers });
      expect(first.status, 'a new delivery').to.equal(202);
      expectDescribedAnswer(doc, 'POST', '/webhooks/github', first.headers.get('content-type') ?? '', first.body);
      // The same delivery again is a duplicate: the 200 answer.
      return svc.raw('POST', '/webhooks/github', { body, headers });
    });
    for (const path of ['/v1/status', '/healthz', '/readyz', '/v1/openapi.json', '/v1/docs', '/v1/docs/api-reference.js', '/v1/docs/api-reference.css']) {
      calls.set(`GET ${path}`, () => svc.raw('GET', path));
    }

    expect([...calls.keys()].sort(), 'one call per described operation').to.deep.equal(describedOperations(doc).sort());
    for (const [operation, call] of calls) {
      const res = await call();
      expect(res.status, `${operation}: ${JSON.stringify(res.body).slice(0, 500)}`).to.equal(200);
      const [method, path] = operation.split(' ') as [string, string];
      expectDescribedAnswer(doc, method, path, res.headers.get('content-type') ?? '', res.body);
    }
  });
});
