// The dashboard's assets on the API's port: hashed assets cached for good, pages revalidated,
// deep links answered with the app, and the API's own paths never shadowed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ensureWebBuild, WEB_BUILD_DIR } from '../../scripts/lib/web-build.mjs';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';

describe('dashboard serving', function () {
  let svc: TestService;
  let assetPath: string;

  before(async function () {
    this.timeout(120_000);
    await ensureWebBuild({ quiet: true });
    const index = readFileSync(path.join(WEB_BUILD_DIR, 'index.html'), 'utf8');
    assetPath = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1]!;
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  it('serves index.html at / and on deep links, revalidated on every visit', async () => {
    for (const p of [
      '/',
      '/sign-in',
      '/default/merge-queue/queue?repo=github.com%2Facme%2Fwidgets&branch=main',
      '/default/flaky-tests/test/12e775f3-45b9-55db-b6e1-272e6e16fcf6?repo=acme%2Fwidgets',
    ]) {
      const res = await svc.raw('GET', p);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('content-type'), p).to.match(/^text\/html/);
      expect(res.headers.get('cache-control'), p).to.equal('no-cache');
      expect(res.body as string, p).to.contain('<div id="root"></div>');
    }
  });

  it('serves hashed assets as immutable for a year', async () => {
    const res = await svc.raw('GET', assetPath);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/javascript/);
    expect(res.headers.get('cache-control')).to.equal('max-age=31536000,immutable');
  });

  it('answers a missing asset or a path that is no page with the JSON 404, never with the app', async () => {
    for (const p of ['/assets/missing-123.js', '/favicon.ico', '/no/such/path', '/default/elsewhere']) {
      const res = await svc.raw('GET', p);
      expect(res.status, p).to.equal(404);
      expect((res.body as { error: { code: string } }).error.code, p).to.equal('route_not_found');
    }
  });

  it('never shadows the API, health or metrics paths', async () => {
    const unknown = await svc.raw('GET', '/v1/noSuchThing', { headers: { 'x-api-token': svc.token } });
    expect(unknown.status).to.equal(404);
    expect((unknown.body as { error: { code: string } }).error.code).to.equal('route_not_found');
    // A known operation asked with another method: the API's 405, before any authentication.
    const wrongMethod = await svc.raw('GET', '/v1/getQueue');
    expect(wrongMethod.status).to.equal(405);
    expect((wrongMethod.body as { error: { code: string } }).error.code).to.equal('method_not_allowed');
    expect((await svc.raw('GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
    for (const p of ['/metrics', '/readyz/extra', '/healthz/x']) {
      const res = await svc.raw('GET', p);
      expect(res.status, p).to.equal(404);
      expect(res.headers.get('content-type'), p).to.match(/application\/json/);
    }
    // Other methods on page paths are not the app's either.
    expect((await svc.raw('POST', '/default/merge-queue')).status).to.equal(404);
  });
});
