// Signing in with an OpenID Connect provider, in a real browser (Debian's Chromium), against a
// real provider on loopback (oidc-provider, test/doubles/oidc/oidc-issuer.ts): a deep link opened
// signed out comes back after sign-in, the header names the person and their role, an admin's
// change is audited under their name, sign-out ends the session on the server; and every way a
// sign-in can go wrong — a foreign state, an expired code, a tampered ID token, a person without
// a role, a session idle too long — lands on the sign-in page with words for it.
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureWebBuild } from '../../scripts/lib/web-build.mjs';
import { accessibilityViolations, openDashboardBrowser, type DashboardBrowser } from '../../scripts/lib/browser.js';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { OidcIssuerDouble } from '../doubles/oidc/oidc-issuer.js';

const PEOPLE = [
  { login: 'jane', name: 'Jane Doe', email: 'jane@example.test', groups: ['platform', 'eng'] },
  { login: 'raj', name: 'Raj Patel', email: 'raj@example.test', groups: ['eng'] },
  { login: 'otto', name: 'Otto Outsider', email: 'otto@example.test', groups: ['marketing'] },
];
const CODE_TTL_SECONDS = 2;
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('dashboard: sign-in with an OpenID Connect provider', function () {
  this.timeout(60_000);
  let issuer: OidcIssuerDouble;
  let svc: TestService;
  let b: DashboardBrowser;
  let context: BrowserContext;
  let page: Page;
  const queuePage = () => `${svc.url}/default/merge-queue/queue?repo=${encodeURIComponent('github.com/acme/widgets')}&branch=main`;

  before(async function () {
    this.timeout(120_000);
    await ensureWebBuild({ quiet: true });
    issuer = await OidcIssuerDouble.listen({ people: PEOPLE, codeTtlSeconds: CODE_TTL_SECONDS });
    svc = await startTestService({
      env: {
        OIDC_ISSUER_URL: issuer.url,
        OIDC_CLIENT_ID: 'openmq-dashboard',
        OIDC_CLIENT_SECRET: 'a-client-secret-of-the-test-issuer',
        OIDC_SCOPES: 'openid profile email groups',
        OIDC_ADMIN_VALUES: 'platform',
        OIDC_WRITE_VALUES: 'eng',
        OIDC_DISPLAY_NAME: 'Test IdP',
      },
    });
    issuer.register({ clientId: 'openmq-dashboard', clientSecret: 'a-client-secret-of-the-test-issuer', redirectUri: `${svc.url}/auth/oidc/callback` });
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    b = await openDashboardBrowser();
  });
  after(async () => {
    await b?.close();
    await svc?.close();
    await issuer?.close();
  });
  beforeEach(async () => {
    // Each case in a fresh profile: no cookie of an earlier case signs it in.
    ({ context, page } = await b.freshPage());
  });
  afterEach(async () => {
    issuer.tamperIdTokens = false;
    issuer.delayCodeDeliveryMs = 0;
    await context.close();
    expect(b.errors.splice(0), 'errors in the browser console').to.deep.equal([]);
    expect(b.foreignRequests.splice(0), 'requests to hosts other than loopback').to.deep.equal([]);
  });

  /** From the service's sign-in page through the provider's login page, as a person does. */
  async function signInAtProvider(login: string): Promise<void> {
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('heading', { name: 'Test identity provider' }).waitFor();
    await page.getByLabel('Login').fill(login);
    await page.getByRole('button', { name: 'Sign in at the provider' }).click();
  }

  const sessionCookie = async () => (await context.cookies(svc.url)).find((c) => c.name === 'openmq_session');

  it('brings a deep link opened signed out back after sign-in, names the person and their role, and audits their change', async () => {
    await page.goto(queuePage());
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    expect(await accessibilityViolations(page)).to.deep.equal([]);
    await signInAtProvider('jane');
    await page.getByRole('heading', { name: /acme\/widgets/ }).waitFor();
    expect(page.url()).to.equal(queuePage());
    expect(await page.getByTestId('signed-in-as').textContent()).to.equal('Jane Doe <jane@example.test> · admin');

    const cookie = await sessionCookie();
    expect(cookie?.httpOnly).to.equal(true);
    expect(cookie?.sameSite).to.equal('Lax');
    // Nothing of the session is readable by the page's scripts.
    expect(await page.evaluate('document.cookie')).not.to.contain('openmq_session');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('queue-state').getByText('paused').waitFor();
    const audit = await svc.post<{ events: { action: string; actor: { kind: string; name: string } }[] }>('/listAuditEvents', { action: 'queue.updated' });
    expect(audit.body.events[0]?.actor).to.deep.include({ kind: 'person', name: 'Jane Doe <jane@example.test>' });
    expect((await svc.post('/updateQueue', { ...ref, state: 'running' })).status).to.equal(200);
    expect(await accessibilityViolations(page)).to.deep.equal([]);
  });

  it('shows a write role without the admin controls', async () => {
    await page.goto(queuePage());
    await signInAtProvider('raj');
    await page.getByRole('heading', { name: /acme\/widgets/ }).waitFor();
    expect(await page.getByTestId('signed-in-as').textContent()).to.equal('Raj Patel <raj@example.test> · write');
    await page.getByText('An admin can pause, drain or resume the queue.').waitFor();
  });

  it('ends the session on the server at sign-out: the old cookie opens nothing', async () => {
    await page.goto(`${svc.url}/sign-in`);
    await signInAtProvider('jane');
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
    const cookie = await sessionCookie();
    expect(cookie).to.not.equal(undefined);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    const replayed = await svc.raw('POST', '/v1/listQueues', {
      body: '{}',
      headers: { 'content-type': 'application/json', cookie: `openmq_session=${cookie?.value}` },
    });
    expect(replayed.status).to.equal(401);
    const events = await svc.post<{ events: { action: string; actor: { name: string } }[] }>('/listAuditEvents', {});
    expect(events.body.events.slice(0, 2).map((e) => [e.action, e.actor.name])).to.deep.equal([
      ['person.signed_out', 'Jane Doe <jane@example.test>'],
      ['person.signed_in', 'Jane Doe <jane@example.test>'],
    ]);
  });

  it('gives a new session id at sign-in, whatever id the browser held before (no fixation)', async () => {
    await context.addCookies([{ name: 'openmq_session', value: 'planted-by-an-attacker', url: svc.url }]);
    await page.goto(`${svc.url}/sign-in`);
    await signInAtProvider('jane');
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
    const first = (await sessionCookie())?.value;
    expect(first).to.be.a('string').and.not.equal('planted-by-an-attacker');
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider still knows this browser, so it answers at once without asking again.
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
    expect((await sessionCookie())?.value).to.not.equal(first);
  });

  it('refuses a callback whose state this browser did not begin', async () => {
    await page.goto(`${svc.url}/auth/oidc/callback?code=stolen&state=not-mine`);
    await page.getByTestId('sign-in-failed').getByText('This sign-in was not started in this browser. Start again.').waitFor();
    expect(await sessionCookie()).to.equal(undefined);
  });

  it('refuses an expired code', async () => {
    await page.goto(`${svc.url}/sign-in`);
    // The provider redirects back with a code that the browser delivers after the code's lifetime.
    issuer.delayCodeDeliveryMs = (CODE_TTL_SECONDS + 1) * 1000;
    await signInAtProvider('jane');
    await page
      .getByTestId('sign-in-failed')
      .getByText(/the code expired or was already used/)
      .waitFor();
    expect(await sessionCookie()).to.equal(undefined);
  });

  it('refuses an ID token altered on its way, whose signature no longer holds', async () => {
    issuer.tamperIdTokens = true;
    await page.goto(`${svc.url}/sign-in`);
    await signInAtProvider('raj');
    await page.getByTestId('sign-in-failed').getByText("The identity provider's answer could not be verified, so it was refused.").waitFor();
    expect(await sessionCookie()).to.equal(undefined);
  });

  it('refuses a person whose groups grant no role, clearly', async () => {
    await page.goto(queuePage());
    await signInAtProvider('otto');
    await page
      .getByTestId('sign-in-failed')
      .getByText(/You signed in, but your account has no role on this service/)
      .waitFor();
    expect(new URL(page.url()).searchParams.get('next')).to.equal(new URL(queuePage()).pathname + new URL(queuePage()).search);
    expect(await sessionCookie()).to.equal(undefined);
    expect(await accessibilityViolations(page)).to.deep.equal([]);
  });

  it('sends a person whose session went idle too long back to sign in, then to the page they were on', async () => {
    await page.goto(queuePage());
    await signInAtProvider('raj');
    await page.getByRole('heading', { name: /acme\/widgets/ }).waitFor();
    // The session's last activity moves back past the idle limit, as if the person had left.
    const idleMs = svc.ctx.config.signIn.sessions.idleMs;
    await svc.ctx.db.collection('sessions').updateMany({}, { $set: { lastSeenAt: new Date(Date.now() - idleMs - 1000) } });
    await page.reload();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).to.equal(new URL(queuePage()).pathname + new URL(queuePage()).search);
  });
});
