// Dashboard sessions on the wire (issue 27): the cookie authenticates a person, every request but
// a GET read needs the session's CSRF token, the person acts with their role and is audited by
// name, a session past its absolute end is refused and removed, sign-out needs the CSRF token and
// clears the cookie, behind TLS the cookie is `__Host-` and Secure, and an API token still works.
// Sessions start through the sign-in module's last step (SignInService.finish), which every
// provider ends with; the provider's own flow is in test/browser/sign-in-oidc.test.ts.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import type { Role } from '../../shared/platform/accounts/roles.js';
import { sessionKeyOf } from '../../shared/sign-in/services/session-service.js';

interface ErrorBody {
  error: { code: string; message: string };
}

const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('dashboard sessions', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    // TRUST_PROXY: the TLS case plays a proxy's X-Forwarded-Proto.
    svc = await startTestService({ env: { TRUST_PROXY: 'true' } });
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
  });
  after(async () => {
    await svc.close();
  });

  async function signedIn(role: Role, login = 'ada') {
    const { secret, session } = await svc.ctx.signIn.signIn.finish({
      person: { personId: `oidc:${login}`, provider: 'oidc', subject: login, login: null, name: `Ada <${login}@example.test>`, email: `${login}@example.test` },
      role,
      next: '/',
    });
    return { secret, csrf: session.csrfToken, cookie: `openmq_session=${secret}` };
  }

  const call = (path: string, body: unknown, headers: Record<string, string>) =>
    svc.raw('POST', `/v1${path}`, { body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

  it('authenticates a person by the cookie, with the CSRF token on every POST', async () => {
    const { cookie, csrf } = await signedIn('admin');
    const without = await call('/getQueue', ref, { cookie });
    expect(without.status).to.equal(403);
    expect((without.body as ErrorBody).error.code).to.equal('csrf_token_invalid');
    const wrong = await call('/getQueue', ref, { cookie, 'x-csrf-token': `${csrf.slice(0, -1)}x` });
    expect(wrong.status).to.equal(403);
    expect((await call('/getQueue', ref, { cookie, 'x-csrf-token': csrf })).status).to.equal(200);
    // A read by GET changes nothing and needs no CSRF token.
    expect((await svc.raw('GET', '/v1/getMergeQueueMetrics', { headers: { cookie } })).status).to.equal(200);
    // No cookie and no token: 401 as before.
    expect((await call('/getQueue', ref, {})).status).to.equal(401);
  });

  it('acts with the role of the sign-in, audited under the person’s name', async () => {
    const reader = await signedIn('read', 'reader');
    const refused = await call('/updateQueue', { ...ref, state: 'paused' }, { cookie: reader.cookie, 'x-csrf-token': reader.csrf });
    expect(refused.status).to.equal(403);
    expect((refused.body as ErrorBody).error.message).to.equal('updateQueue needs the admin role; you are signed in with the read role');

    const admin = await signedIn('admin', 'grace');
    expect((await call('/updateQueue', { ...ref, state: 'paused' }, { cookie: admin.cookie, 'x-csrf-token': admin.csrf })).status).to.equal(200);
    const audit = await svc.post<{ events: { action: string; actor: unknown }[] }>('/listAuditEvents', { action: 'queue.updated' });
    expect(audit.body.events[0]?.actor).to.deep.equal({ kind: 'person', tokenId: null, name: 'Ada <grace@example.test>' });
    expect((await svc.post('/updateQueue', { ...ref, state: 'running' })).status).to.equal(200);
  });

  it('says who is signed in at /auth/session, and that nobody is without the cookie', async () => {
    const { cookie, csrf } = await signedIn('write');
    const res = await svc.raw('GET', '/auth/session', { headers: { cookie } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.body).to.deep.include({
      person: { name: 'Ada <ada@example.test>', email: 'ada@example.test', provider: 'oidc' },
      role: 'write',
      csrfToken: csrf,
    });
    expect((await svc.raw('GET', '/auth/session')).status).to.equal(204);
  });

  it('refuses and removes a session past its absolute end, however recently used', async () => {
    const { cookie, csrf, secret } = await signedIn('admin');
    const key = sessionKeyOf(secret);
    await svc.ctx.db.collection('sessions').updateOne({ _id: key }, { $set: { expiresAt: new Date(Date.now() - 1000), lastSeenAt: new Date() } });
    const res = await call('/getQueue', ref, { cookie, 'x-csrf-token': csrf });
    expect(res.status).to.equal(401);
    expect((res.body as ErrorBody).error.code).to.equal('session_ended');
    expect(await svc.ctx.signIn.store.sessions.find(key)).to.equal(null);
  });

  it('signs out only with the CSRF token, ending the session and clearing the cookie', async () => {
    const { cookie, csrf } = await signedIn('admin');
    const forged = await svc.raw('POST', '/auth/sign-out', { headers: { cookie } });
    expect(forged.status).to.equal(403);
    expect((await call('/getQueue', ref, { cookie, 'x-csrf-token': csrf })).status).to.equal(200);
    const out = await svc.raw('POST', '/auth/sign-out', { headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.status).to.equal(204);
    expect(out.headers.getSetCookie().join('\n')).to.match(/^openmq_session=; path=\/; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=lax; httponly$/m);
    expect((await call('/getQueue', ref, { cookie, 'x-csrf-token': csrf })).status).to.equal(401);
    // Again, or without any session: nothing to end, still 204.
    expect((await svc.raw('POST', '/auth/sign-out', { headers: { cookie, 'x-csrf-token': csrf } })).status).to.equal(204);
  });

  it('behind TLS uses a __Host- cookie that is Secure, and ignores the plain one', async () => {
    const { secret, csrf } = await signedIn('admin');
    const tls = { 'x-forwarded-proto': 'https' };
    expect((await call('/getQueue', ref, { ...tls, cookie: `openmq_session=${secret}`, 'x-csrf-token': csrf })).status).to.equal(401);
    expect((await call('/getQueue', ref, { ...tls, cookie: `__Host-openmq_session=${secret}`, 'x-csrf-token': csrf })).status).to.equal(200);
    const out = await svc.raw('POST', '/auth/sign-out', { headers: { ...tls, cookie: `__Host-openmq_session=${secret}`, 'x-csrf-token': csrf } });
    expect(out.headers.getSetCookie().join('\n')).to.match(/^__Host-openmq_session=; path=\/; expires=[^;]+; samesite=lax; secure; httponly$/m);
  });

  it('still takes an API token, which wins over a cookie', async () => {
    const reader = await signedIn('read', 'reader2');
    const res = await call('/updateQueue', { ...ref, state: 'running' }, { cookie: reader.cookie, 'x-api-token': svc.token });
    expect(res.status).to.equal(200);
  });

  it('offers the token only when no provider is configured', async () => {
    const methods = await svc.raw('GET', '/auth/methods');
    expect(methods.body).to.deep.include({ token: true, oidc: null });
    const start = await svc.raw('GET', '/auth/oidc/start?next=/default/merge-queue');
    expect(start.status).to.equal(404);
    expect((start.body as ErrorBody).error.code).to.equal('sign_in_not_configured');
  });
});
