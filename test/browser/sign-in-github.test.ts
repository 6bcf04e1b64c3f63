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
      env: { ...double.appEnv, GITHUB_SIGN_IN_CLIENT_ID: CLIENT.id, GITHUB_SIGN_IN_CLIENT_SECRET: CLIENT.secret, GITHUB_WEB_URL: double.webUrl },
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
      ['/createPersonalToken', { name: 'laptop', role: 'read' }],
    ] as const) {
      const res = await asPerson(path, body);
      expect(res.status, path).to.equal(403);
      expect((res.body as { error: { code: string } }).error.code, path).to.equal('organisation_role_required');
    }
  });
});
