// POST /webhooks/github at the edge: signatures as GitHub computes them (X-Hub-Signature-256 over
// the raw body), deduplication by X-GitHub-Delivery, what is ignored; a GitHub repository
// belonging to one organisation; and the GitHub settings, validated at start-up.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { ConfigError, loadConfig } from '../../shared/composition/config.js';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, makeGitRoot, pushToBranch, removeGitRoot } from '../../scripts/lib/git-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';
import { examplePayload, payloadFor } from '../doubles/github/webhook-payloads.js';
import { checkRunState } from '../../shared/providers/github/commit-checks.js';

const SECRET = 'webhook-secret-of-the-tests';

describe('GitHub webhooks', function () {
  this.timeout(30_000);
  let root: string;
  let double: GitHubDouble;
  let svc: TestService;

  before(async () => {
    root = await makeGitRoot();
    double = await startGitHubDouble(root);
    const fx = await createRepo(root, { repo: { host: 'github.com', owner: 'acme', name: 'widgets' } });
    await pushToBranch(fx, 'release', [{ message: 'release', files: { 'r.txt': 'r\n' } }]);
    svc = await startTestService({
      env: { ...double.appEnv, GITHUB_WEBHOOK_SECRET: SECRET },
    });
  });
  after(async () => {
    await svc.close();
    await double.close();
    await removeGitRoot(root);
  });

  async function post(body: string, headers: Record<string, string>) {
    return svc.raw('POST', '/webhooks/github', { body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...headers } });
  }

  function deliveries() {
    return svc.ctx.db.collection('github_webhook_deliveries');
  }

  it('answers 401 for a missing or wrong signature and records nothing', async () => {
    const body = JSON.stringify(payloadFor('push', undefined, { owner: 'acme', name: 'widgets', installationId: 1 }, { ref: 'refs/heads/main' }));
    const missing = await post(body, { 'x-github-delivery': 'd-missing' });
    const wrong = await post(body, { 'x-github-delivery': 'd-wrong', 'x-hub-signature-256': await sign('another-secret-entirely', body) });
    // A valid signature of another body: the signature covers the bytes, not a parse of them.
    const tampered = await post(`${body} `, { 'x-github-delivery': 'd-tampered', 'x-hub-signature-256': await sign(SECRET, body) });
    for (const res of [missing, wrong, tampered]) expect(res.status).to.equal(401);
    expect(await deliveries().countDocuments({})).to.equal(0);
  });

  it('accepts a signed delivery once; the same delivery id again is acknowledged as a duplicate', async () => {
    const body = JSON.stringify(payloadFor('push', undefined, { owner: 'acme', name: 'widgets', installationId: 1 }, { ref: 'refs/heads/main' }));
    const id = randomUUID();
    const headers = { 'x-github-delivery': id, 'x-hub-signature-256': await sign(SECRET, body) };
    const first = await post(body, headers);
    expect(first.status).to.equal(202);
    expect(first.body).to.deep.equal({ delivery: 'accepted' });
    const again = await post(body, headers);
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal({ delivery: 'duplicate' });
    expect(await deliveries().countDocuments({ _id: id })).to.equal(1);
  });

  it('needs no API token, and /v1 still does', async () => {
    const body = JSON.stringify(examplePayload('installation', 'created'));
    const res = await svc.raw('POST', '/webhooks/github', {
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'installation',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': await sign(SECRET, body),
      },
    });
    expect(res.status).to.equal(202);
    expect((await svc.raw('POST', '/v1/getQueue', { body: '{}', headers: { 'content-type': 'application/json' } })).status).to.equal(401);
  });

  it('processes a delivery as a job: pushes to test branches and statuses of other commits change nothing', async () => {
    const webhooks = svc.ctx.github?.webhooks;
    if (!webhooks) throw new Error('webhooks are configured');
    const repo = { owner: 'acme', name: 'widgets', installationId: 1 };
    const events = [
      ['push', payloadFor('push', undefined, repo, { ref: 'refs/heads/trunk-merge/pr-1/run' })],
      ['status', payloadFor('status', undefined, repo, { sha: 'a'.repeat(40), state: 'success', context: 'ci/test' })],
      ['pull_request', payloadFor('pull_request', 'opened', repo, {})],
    ] as const;
    for (const [event, payload] of events) {
      const id = randomUUID();
      await deliveries().insertOne({ _id: id, event, payload: JSON.stringify(payload), receivedAt: new Date(), processedAt: null });
      await webhooks.process(id);
      const doc = await deliveries().findOne({ _id: id });
      expect(doc?.processedAt, event).to.be.instanceOf(Date);
      expect(doc?.payload, event).to.equal(null);
    }
    expect(await svc.ctx.mergeQueue.store.commitStatuses.forCommit(svc.orgId, 'github.com/acme/widgets', 'a'.repeat(40))).to.deep.equal([]);
  });

  it('a GitHub repository belongs to the organisation that created its first queue; local repositories do not', async () => {
    const other = await svc.addOrg('other-org');
    const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
    expect((await svc.post('/createQueue', { repo, targetBranch: 'main' })).status).to.equal(200);
    const refused = await svc.post('/createQueue', { repo, targetBranch: 'release' }, { token: other.token });
    expect(refused.status).to.equal(404);
    expect(JSON.stringify(refused.body)).to.contain('repository_not_found');
    expect((await svc.post('/getQueue', { repo, targetBranch: 'main' }, { token: other.token })).status).to.equal(404);
    expect((await svc.post('/createQueue', { repo, targetBranch: 'release' })).status).to.equal(200);
    const local = { host: 'git.example.org', owner: 'acme', name: 'tools' };
    await createRepo(svc.gitRoot, { repo: local });
    expect((await svc.post('/createQueue', { repo: local, targetBranch: 'main' }, { token: other.token })).status).to.equal(200);
    expect((await svc.post('/createQueue', { repo: local, targetBranch: 'main' })).status).to.equal(200);
  });

  it('maps check run conclusions to status states as GitHub does for required checks', () => {
    expect(checkRunState('in_progress', null)).to.equal('pending');
    expect(['success', 'neutral', 'skipped'].map((c) => checkRunState('completed', c))).to.deep.equal(['success', 'success', 'success']);
    expect(['failure', 'timed_out', 'action_required'].map((c) => checkRunState('completed', c))).to.deep.equal(['failure', 'failure', 'failure']);
    expect(checkRunState('completed', 'cancelled')).to.equal('error');
  });

  describe('settings, validated at start-up', () => {
    const base = { REDIS_URL: 'redis://127.0.0.1:1' };
    function problems(env: Record<string, string>): string {
      try {
        loadConfig({ ...base, ...env });
        return '';
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as Error).message;
      }
    }

    it('GitHub is off unless an App or a token is configured; defaults follow GITHUB_HOST', () => {
      expect(loadConfig(base).github).to.equal(null);
      const cfg = loadConfig({ ...base, GITHUB_TOKEN: 'ghp_x', GITHUB_HOST: 'GHE.example.com', GITHUB_API_URL: 'https://ghe.example.com/api/v3/' });
      expect(cfg.github).to.deep.equal({
        auth: { kind: 'token', token: 'ghp_x' },
        webhookSecret: null,
        apiUrl: 'https://ghe.example.com/api/v3',
        host: 'ghe.example.com',
        gitUrl: 'https://ghe.example.com',
        webhookPollSeconds: 300,
        webhookQuietSeconds: 900,
      });
      expect(loadConfig({ ...base, GITHUB_TOKEN: 'ghp_x' }).github).to.include({
        apiUrl: 'https://api.github.com',
        host: 'github.com',
        gitUrl: 'https://github.com',
      });
    });

    it('an App needs its id and exactly one readable PEM key; not both an App and a token', () => {
      expect(problems({ GITHUB_APP_ID: '42' })).to.match(/GITHUB_APP_PRIVATE_KEY: set exactly one/);
      expect(problems({ GITHUB_APP_ID: '42', GITHUB_APP_PRIVATE_KEY: 'not a key' })).to.match(/not a readable PEM private key/);
      expect(problems({ GITHUB_APP_ID: '42', GITHUB_APP_PRIVATE_KEY_FILE: '/nonexistent/key.pem' })).to.match(
        /GITHUB_APP_PRIVATE_KEY_FILE: not a readable PEM/,
      );
      expect(problems({ GITHUB_APP_ID: '42', GITHUB_APP_PRIVATE_KEY: double.privateKey, GITHUB_TOKEN: 'ghp_x' })).to.match(/either a GitHub App .* or a token/);
      expect(problems({ GITHUB_APP_PRIVATE_KEY: double.privateKey })).to.match(/set GITHUB_APP_ID too/);
      expect(problems({ GITHUB_WEBHOOK_SECRET: 'a-long-enough-secret' })).to.match(/GITHUB_WEBHOOK_SECRET: set GITHUB_APP_ID/);
      expect(problems({ GITHUB_TOKEN: 'ghp_x', GITHUB_WEBHOOK_SECRET: 'short' })).to.match(/at least 16 characters/);
      expect(problems({ GITHUB_TOKEN: 'ghp_x', PROVIDER_POLL_SECONDS: '60', GITHUB_WEBHOOK_POLL_SECONDS: '30' })).to.match(
        /GITHUB_WEBHOOK_POLL_SECONDS: must be at least PROVIDER_POLL_SECONDS \(60\)/,
      );
      expect(problems({ GITHUB_TOKEN: 'ghp_x', GITHUB_WEBHOOK_QUIET_SECONDS: '0' })).to.match(/GITHUB_WEBHOOK_QUIET_SECONDS/);
      expect(loadConfig({ ...base, GITHUB_TOKEN: 'ghp_x', GITHUB_WEBHOOK_POLL_SECONDS: '600', GITHUB_WEBHOOK_QUIET_SECONDS: '1200' }).github).to.include({
        webhookPollSeconds: 600,
        webhookQuietSeconds: 1200,
      });
      // Unset, the slower poll defaults to 300 s but never to less than the normal poll.
      expect(loadConfig({ ...base, GITHUB_TOKEN: 'ghp_x' }).github).to.include({ webhookPollSeconds: 300, webhookQuietSeconds: 900 });
      expect(loadConfig({ ...base, GITHUB_TOKEN: 'ghp_x', PROVIDER_POLL_SECONDS: '900' }).github).to.include({ webhookPollSeconds: 900 });
      const app = loadConfig({ ...base, GITHUB_APP_ID: '42', GITHUB_APP_PRIVATE_KEY: double.privateKey.replace(/\n/g, '\\n') }).github;
      expect(app?.auth).to.deep.equal({ kind: 'app', appId: '42', privateKey: double.privateKey });
    });
  });
});
