// `openmq login` end to end: the real CLI as a process, the dashboard in Chromium. The CLI prints
// the dashboard's /cli-login link (--no-browser: the test is the browser); a person signed in
// approves; the CLI receives a one-time code on its loopback port, exchanges it with its PKCE
// verifier for a personal token, and stores it for its user only; later commands use it without
// OPENMQ_TOKEN; the code cannot be used again; `openmq logout` revokes the token. The dashboard's
// "Your tokens" page lists it and makes another.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureWebBuild } from '../../scripts/lib/web-build.mjs';
import { accessibilityViolations, openDashboardBrowser, type DashboardBrowser } from '../../scripts/lib/browser.js';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';

const BIN = fileURLToPath(new URL('../../cli/bin/openmq.mjs', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('openmq login: a personal token for the CLI, approved in the dashboard', function () {
  this.timeout(90_000);
  let svc: TestService;
  let b: DashboardBrowser;
  let context: BrowserContext;
  let page: Page;
  let home: string;

  const env = () => ({ PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: path.join(home, 'config') });
  const credentialsFile = () => path.join(home, 'config', 'openmq', 'credentials.json');

  function start(args: string[]): { child: ChildProcess; done: Promise<Run>; output: () => Run } {
    const child = spawn(process.execPath, [BIN, ...args], { env: env() });
    const run: Run = { code: -1, stdout: '', stderr: '' };
    child.stdout?.on('data', (c: Buffer) => (run.stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (run.stderr += c.toString()));
    const done = new Promise<Run>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ ...run, code: code ?? -1 }));
    });
    return { child, done, output: () => run };
  }
  const openmq = (args: string[]) => start(args).done;

  before(async function () {
    this.timeout(120_000);
    await ensureWebBuild({ quiet: true });
    svc = await startTestService();
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    expect((await svc.post('/createQueue', { repo: DEFAULT_REPO, targetBranch: 'main' })).status).to.equal(200);
    home = mkdtempSync(path.join(tmpdir(), 'openmq-cli-home-'));
    b = await openDashboardBrowser();
    // A person signed in with the write role, as the identity provider's sign-in ends.
    const { secret } = await svc.ctx.signIn.signIn.finish({
      person: { personId: 'oidc:lin', provider: 'oidc', subject: 'lin', login: null, name: 'Lin <lin@example.test>', email: 'lin@example.test' },
      role: 'write',
      next: '/',
    });
    ({ context, page } = await b.freshPage());
    await context.addCookies([{ name: 'openmq_session', value: secret, url: svc.url }]);
  });
  after(async () => {
    await b?.close();
    await svc?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(b.errors.splice(0), 'errors in the browser console').to.deep.equal([]);
    expect(b.foreignRequests.splice(0), 'requests to hosts other than loopback').to.deep.equal([]);
  });

  let callbackUrl = '';

  it('signs the CLI in once the person approves, and stores the token for the user only', async () => {
    const login = start(['login', '--url', svc.url, '--no-browser', '--name', 'laptop']);
    const link = await waitFor('the login link', () => Promise.resolve(/(http:\/\/\S+\/cli-login\?\S+)/.exec(login.output().stderr)?.[1]), {
      timeoutMs: 30_000,
    });
    await page.goto(link);
    await page.getByRole('heading', { name: 'Sign in the openmq CLI' }).waitFor();
    expect(await page.getByLabel('Token name').inputValue()).to.equal('laptop');
    expect(await page.getByLabel('Role').inputValue()).to.equal('write');
    expect(await accessibilityViolations(page)).to.deep.equal([]);
    await page.getByRole('button', { name: 'Approve the CLI' }).click();
    await page.getByText('The openmq CLI is signed in. You can close this tab.').waitFor();
    callbackUrl = page.url();
    const run = await login.done;
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^signed in to default with the write role as "laptop", until \S+; the token is in .*credentials\.json\n$/);

    expect(statSync(credentialsFile()).mode & 0o777).to.equal(0o600);
    expect(statSync(path.dirname(credentialsFile())).mode & 0o777).to.equal(0o700);
    const stored = JSON.parse(readFileSync(credentialsFile(), 'utf8')) as Record<string, { token: string; role: string }>;
    expect(stored[svc.url]).to.deep.include({ role: 'write' });
    expect(stored[svc.url]?.token).to.match(/^omq_/);
  });

  it('uses the stored token without OPENMQ_TOKEN, within the person’s role', async () => {
    const show = await openmq(['queue', 'show', '--url', svc.url, '--repo', 'github.com/acme/widgets', '--json']);
    expect(show.code, show.stderr).to.equal(0);
    const tokens = await openmq(['tokens', 'list', '--url', svc.url]);
    expect(tokens.code).to.equal(4);
    const audit = await svc.post<{ events: { action: string; actor: { name: string }; detail: Record<string, unknown> }[] }>('/listAuditEvents', {
      action: 'token.created',
    });
    expect(audit.body.events[0]).to.deep.include({ actor: { kind: 'person', tokenId: null, name: 'Lin <lin@example.test>' } });
  });

  it('refuses the code a second time, and a code without the CLI’s verifier', async () => {
    const code = new URL(callbackUrl).searchParams.get('code');
    expect(code).to.be.a('string');
    const replay = await svc.raw('POST', '/auth/cli/token', {
      body: JSON.stringify({ code, verifier: 'a'.repeat(43) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(replay.status).to.equal(400);
    expect((replay.body as { error: { code: string } }).error.code).to.equal('invalid_grant');
  });

  it('lists the token on "Your tokens", where the person can make another', async () => {
    await page.goto(`${svc.url}/default/tokens`);
    await page.getByRole('heading', { name: 'Your tokens' }).waitFor();
    await page.locator('tr[data-token="laptop"]').getByText('write').waitFor();
    await page.getByLabel('Name').fill('script');
    await page.getByRole('button', { name: 'Create token' }).click();
    expect(await page.getByTestId('new-token').textContent()).to.match(/^Your new token script, shown only now: omq_\S+$/);
    await page.locator('tr[data-token="script"]').waitFor();
    expect(await accessibilityViolations(page)).to.deep.equal([]);
  });

  it('logs out: the token is revoked and forgotten', async () => {
    const out = await openmq(['logout', '--url', svc.url]);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stdout).to.equal(`signed out of ${svc.url}; the token is revoked\n`);
    expect(JSON.parse(readFileSync(credentialsFile(), 'utf8'))).to.deep.equal({});
    const show = await openmq(['queue', 'show', '--url', svc.url, '--repo', 'github.com/acme/widgets']);
    expect(show.code).to.equal(2);
    expect(show.stderr).to.contain('`openmq login`');
    await page.reload();
    await page.locator('tr[data-token="laptop"]').getByText('revoked').waitFor();
  });

  it('sends a person who is signed out to sign in first, then back to the CLI’s request', async () => {
    const fresh = await b.newContext();
    const other = await fresh.newPage();
    const link = `${svc.url}/cli-login?port=45678&state=abc&challenge=${'c'.repeat(43)}`;
    await other.goto(link);
    await other.getByLabel('API token').waitFor();
    expect(new URL(other.url()).searchParams.get('next')).to.equal(new URL(link).pathname + new URL(link).search);
    await fresh.close();
  });
});
