// Signing in with GitHub, in Chromium, against the GitHub double (the App's user authorization on
// loopback, /user validated against GitHub's REST description): a deep link opened signed out
// comes back after sign-in; what a person may do follows their permission on the repository —
// admin controls for an admin, none for write, a clear refusal and no queue listed for a person
// without access — and nothing that concerns the whole organisation is open to them.
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureWebBuild } from '../../scripts/lib/web-build.mjs';
import { accessibilityViolations, openDashboardBrowser, type DashboardBrowser } from '../../scripts/lib/browser.js';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO, makeGitRoot, removeGitRoot } from '../../scripts/lib/git-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';

const CLIENT = { id: 'Iv1.openmqdashboard', secret: 'client-secret-of-the-test-app' };
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('dashboard: sign-in with GitHub, roles from repository permissions', function () {
  this.timeout(60_000);
  let root: string;
  let double: GitHubDouble;
  let svc: TestService;
  let b: DashboardBrowser;
  let context: BrowserContext;
  let page: Page;
  const queuePage = () => `${svc.url}/default/merge-queue/queue?repo=${encodeURIComponent('github.com/acme/widgets')}&branch=main`;

  before(async function () {
    this.timeout(120_000);
    await ensureWebBuild({ quiet: true });
    root = await makeGitRoot();
    double = await startGitHubDouble(root);
    await createRepo(root, { repo: DEFAULT_REPO, files: { 'README.md': '# widgets\n' } });
    svc = await startTestService({
      env: {
        ...double.appEnv,
        GITHUB_SIGN_IN_CLIENT_ID: CLIENT.id,
        GITHUB_SIGN_IN_CLIENT_SECRET: CLIENT.secret,
        GITHUB_WEB_URL: double.webUrl,
        GITHUB_PERMISSION_CACHE_SECONDS: '1',
      },
    });
    double.oauth.client = { ...CLIENT, redirectUri: `${svc.url}/auth/github/callback` };
    for (const [id, login, name, permission] of [
      [11, 'jane', 'Jane Admin', 'admin'],
      [12, 'raj', 'Raj Writer', 'write'],
      [13, 'otto', null, 'none'],
    ] as const) {
      double.oauth.users.set(login, { id, login, name, email: null });
      double.permissions.set(`acme/widgets:${login}`, permission);
    }
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
    b = await openDashboardBrowser();
  });
  after(async () => {
    await b?.close();
    await svc?.close();
    await double?.close();
    if (root) await removeGitRoot(root);
    double?.assertClean();
  });
  beforeEach(async () => {
    // A refused read is shown on the page; the browser also logs its status.
    ({ context, page } = await b.freshPage({ ignore: /status of 403/ }));
  });
  afterEach(async () => {
    await context.close();
    expect(b.errors.splice(0), 'errors in the browser console').to.deep.equal([]);
    expect(b.foreignRequests.splice(0), 'requests to hosts other than loopback').to.deep.equal([]);
  });

  async function signInAs(login: string): Promise<void> {
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await page.getByRole('heading', { name: 'Sign in to GitHub to continue' }).waitFor();
    await page.getByLabel('GitHub login').fill(login);
    await page.getByRole('button', { name: 'Authorize' }).click();
  }

  /** A request with this browser's session, as the dashboard makes it. */
  async function asPerson(path: string, body: unknown) {
    const cookie = (await context.cookies(svc.url)).find((c) => c.name === 'openmq_session');
    const session = (await (await fetch(`${svc.url}/auth/session`, { headers: { cookie: `openmq_session=${cookie?.value}` } })).json()) as {
      csrfToken: string;
    };
    return svc.raw('POST', `/v1${path}`, {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', cookie: `openmq_session=${cookie?.value}`, 'x-csrf-token': session.csrfToken },
    });
  }

  it('brings an admin of the repository back to the deep link, with the admin controls', async () => {
    await page.goto(queuePage());
    await signInAs('jane');
    await page.getByRole('heading', { name: /acme\/widgets/ }).waitFor();
    expect(page.url()).to.equal(queuePage());
    expect(await page.getByTestId('signed-in-as').textContent()).to.equal('Jane Admin (@jane) · role per repository');
    await page.getByTestId('repository-role').getByText('admin').waitFor();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    expect(await accessibilityViolations(page)).to.deep.equal([]);
  });

  it('gives a writer the write role on the repository, without the admin controls', async () => {
    await page.goto(queuePage());
    await signInAs('raj');
    await page.getByTestId('repository-role').getByText('write').waitFor();
    await page.getByText('An admin can pause, drain or resume the queue.').waitFor();
    const paused = await asPerson('/updateQueue', { ...ref, state: 'paused' });
    expect(paused.status).to.equal(403);
    expect((paused.body as { error: { code: string } }).error.code).to.equal('role_not_allowed');
  });

  it('refuses a person without access to the repository clearly, and lists none of its queues', async () => {
    await page.goto(queuePage());
    await signInAs('otto');
    await page.getByText('you (@otto) have no access to github.com/acme/widgets on GitHub').waitFor();
    await page.goto(`${svc.url}/default/merge-queue`);
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
    expect(await page.getByRole('link', { name: /acme\/widgets/ }).count()).to.equal(0);
    expect(await accessibilityViolations(page)).to.deep.equal([]);
  });

  it('opens nothing of the whole organisation to a person with roles per repository', async () => {
    await page.goto(`${svc.url}/sign-in`);
    await signInAs('jane');
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
    for (const [path, body] of [
      ['/listAuditEvents', {}],
      ['/listTokens', {}],
      ['/createWebhookEndpoint', { url: 'http://127.0.0.1:9/hook' }],
    ] as const) {
      const res = await asPerson(path, body);
      expect(res.status, path).to.equal(403);
      expect((res.body as { error: { code: string } }).error.code, path).to.equal('organisation_role_required');
    }
  });

  it("bounds a personal token by its person's permission on each repository, and its own role", async () => {
    const tokenOf = async (login: string, role: string) => {
      ({ context, page } = await b.freshPage({ ignore: /status of 403/ }));
      await page.goto(`${svc.url}/sign-in`);
      await signInAs(login);
      await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
      const res = await asPerson('/createPersonalToken', { name: `${login}-${role}`, role });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      await context.close();
      return (res.body as { token: string }).token;
    };
    const status = async (token: string, path: string, body: unknown) => (await svc.post(path, body, { token })).status;
    const janeAdmin = await tokenOf('jane', 'admin');
    const janeRead = await tokenOf('jane', 'read');
    const rajAdmin = await tokenOf('raj', 'admin');
    // jane is admin on acme/widgets: her admin token may pause; her read token may only read.
    expect(await status(janeAdmin, '/updateQueue', { ...ref, state: 'paused' })).to.equal(200);
    expect(await status(janeAdmin, '/updateQueue', { ...ref, state: 'running' })).to.equal(200);
    expect(await status(janeRead, '/updateQueue', { ...ref, state: 'paused' })).to.equal(403);
    expect(await status(janeRead, '/getQueue', ref)).to.equal(200);
    // raj may write on GitHub: his token's admin role does not raise that.
    expect(await status(rajAdmin, '/updateQueue', { ...ref, state: 'paused' })).to.equal(403);
    expect(await status(rajAdmin, '/getQueue', ref)).to.equal(200);
    // Nothing of the whole organisation, as for the person.
    expect(await status(janeAdmin, '/listAuditEvents', {})).to.equal(403);
    const audit = await svc.post<{ events: { actor: { name: string } }[] }>('/listAuditEvents', { action: 'queue.updated' });
    expect(audit.body.events[0]?.actor.name).to.equal('jane-admin of Jane Admin (@jane)');
    // Permissions are read again: jane loses admin on GitHub, and her token follows once the
    // answer kept (GITHUB_PERMISSION_CACHE_SECONDS, 1 s here) has expired.
    double.permissions.set('acme/widgets:jane', 'write');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await status(janeAdmin, '/updateQueue', { ...ref, state: 'paused' })).to.equal(403);
    double.permissions.set('acme/widgets:jane', 'admin');
  });
});
