// Behaviour every endpoint shares: authentication, request ids, the error envelope, body limits,
// unknown routes and methods, health checks.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { expectOpenApiResponse } from '../helpers/openapi.js';

interface ErrorBody {
  error: { code: string; message: string; details: unknown[]; requestId: string };
}
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('HTTP behaviour', function () {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    await svc.post('/createQueue', ref);
  });
  after(async () => {
    await svc.close();
  });

  it('answers 401 without a token, with an unknown token and with a revoked one', async () => {
    const none = await svc.post<ErrorBody>('/getQueue', ref, { token: null });
    expect(none.status).to.equal(401);
    expect(none.body.error.code).to.equal('missing_token');
    const unknown = await svc.post<ErrorBody>('/getQueue', ref, { token: 'omq_not-a-real-token-at-all' });
    expect(unknown.status).to.equal(401);
    expect(unknown.body.error.code).to.equal('invalid_token');

    const other = await svc.addOrg('revoked-org');
    expect((await svc.post('/getQueue', ref, { token: other.token })).status).to.equal(404);
    const [token] = await svc.ctx.accounts.store.tokens.list(other.orgId);
    expect(await svc.ctx.accounts.store.tokens.revoke(token!.id)).to.equal(true);
    expect((await svc.post('/getQueue', ref, { token: other.token })).status).to.equal(401);
  });

  it('requires the token before reading the body of every operation; a path that is no operation is not found, without authentication', async () => {
    for (const path of ['/createQueue', '/submitPullRequest']) {
      const res = await svc.post(path, {}, { token: null });
      expect(res.status, path).to.equal(401);
    }
    const nope = await svc.post<ErrorBody>('/nope', {}, { token: null });
    expect(nope.status).to.equal(404);
    expect(nope.body.error.code).to.equal('route_not_found');
  });

  it('puts a request id on every response and in error bodies, keeping a safe caller id', async () => {
    const ok = await svc.post('/getQueue', ref);
    expect(ok.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const mine = await svc.post<ErrorBody>('/getQueue', { ...ref, targetBranch: 'nope' }, { headers: { 'x-request-id': 'ci-job-42.step:3' } });
    expect(mine.headers.get('x-request-id')).to.equal('ci-job-42.step:3');
    expect(mine.body.error.requestId).to.equal('ci-job-42.step:3');
    const unsafe = await svc.post('/getQueue', ref, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(unsafe.headers.get('x-request-id')).to.not.equal('bad id with spaces');
    const health = await svc.raw('GET', '/healthz');
    expect(health.headers.get('x-request-id')).to.be.a('string');
  });

  it('answers 400 malformed_json for a body that is not JSON or not an object', async () => {
    for (const body of ['{"repo": ', 'not json', '"a string"', '42']) {
      const res = await svc.raw('POST', '/v1/getQueue', { body, headers: { 'content-type': 'application/json', 'x-api-token': svc.token } });
      expect(res.status, body).to.equal(400);
      expect((res.body as ErrorBody).error.code, body).to.equal('malformed_json');
    }
  });

  it('answers 413 for a body over 20 MiB', async () => {
    const big = JSON.stringify({ ...ref, padding: 'x'.repeat(21 * 1024 * 1024) });
    const res = await svc.raw('POST', '/v1/getQueue', { body: big, headers: { 'content-type': 'application/json', 'x-api-token': svc.token } });
    expect(res.status).to.equal(413);
    expect((res.body as ErrorBody).error.code).to.equal('body_too_large');
  });

  it('accepts a body just under 20 MiB (and rejects it for its unknown field, not its size)', async () => {
    const body = JSON.stringify({ ...ref, padding: 'x'.repeat(19 * 1024 * 1024) });
    const res = await svc.raw('POST', '/v1/getQueue', { body, headers: { 'content-type': 'application/json', 'x-api-token': svc.token } });
    expect(res.status).to.equal(400);
    expect((res.body as ErrorBody).error.code).to.equal('invalid_request');
  });

  it('answers 404 for unknown routes and 405 for a wrong method on a known path', async () => {
    const unknown = await svc.post<ErrorBody>('/noSuchEndpoint', {});
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal('route_not_found');
    // `/` is the dashboard's (docs/dashboard.md); a path that is no page of it is not found.
    const elsewhere = await svc.raw('GET', '/no/such/page');
    expect(elsewhere.status).to.equal(404);
    const wrong = await svc.raw('GET', '/v1/getQueue', { headers: { 'x-api-token': svc.token } });
    expect(wrong.status).to.equal(405);
    expect((wrong.body as ErrorBody).error.code).to.equal('method_not_allowed');
    const healthPost = await svc.raw('POST', '/healthz');
    expect(healthPost.status).to.equal(405);
  });

  it('serves /healthz and /readyz without a token', async () => {
    const health = await svc.raw('GET', '/healthz');
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    const ready = await svc.raw('GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ready', checks: { mongodb: 'ok', redis: 'ok' } });
  });

  it('serves the compatible GET /v1/status without a token', async () => {
    const res = await svc.raw('GET', '/v1/status');
    expect(res.status).to.equal(200);
    expectOpenApiResponse('/status', res.body, 'GET');
    expect(res.body).to.deep.equal({
      overallStatus: { type: 'up', color: 'green', overallStatusDescription: 'All systems operational' },
      statuses: [
        { name: 'mongodb', color: 'green', statusDescription: 'ok' },
        { name: 'redis', color: 'green', statusDescription: 'ok' },
      ],
    });
  });

  it('tolerates the informational headers clients send (x-source)', async () => {
    const res = await svc.post('/getQueue', ref, { headers: { 'x-source': 'terraform' } });
    expect(res.status).to.equal(200);
  });
});
