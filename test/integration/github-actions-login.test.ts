// Uploads from GitHub Actions without a stored secret: a run's OpenID Connect token (from a local
// issuer double that publishes its keys as GitHub does) is exchanged for a short-lived token that
// uploads impacted targets of that repository through the v2 API, and does nothing else.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { startActionsIssuer, type ActionsIssuer } from '../doubles/github/actions-oidc-issuer.js';
import { makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { checkAgainstContract } from '../helpers/v2-contract.js';
import { LOGIN_TTL_MS } from '../../shared/sign-in/services/github-actions-login.js';

const AUDIENCE = 'openmq-test';

interface LoginAnswer {
  token: string;
  expiresAt: string;
  repository: string;
  repositoryId: string;
}

describe('GitHub Actions login', function () {
  this.timeout(60_000);
  let issuer: ActionsIssuer;
  let svc: TestService;
  let q: PrQueue;
  let repository: string;

  before(async () => {
    issuer = await startActionsIssuer();
    svc = await startTestService({
      ...SERVICE_OPTIONS,
      env: { ...SERVICE_OPTIONS.env, GITHUB_ACTIONS_OIDC_ISSUER: issuer.url, GITHUB_ACTIONS_OIDC_AUDIENCE: AUDIENCE },
    });
    q = await makeQueue(svc);
    repository = `${q.ref.repo.owner}/${q.ref.repo.name}`;
  });
  after(async () => {
    await svc.close();
    await issuer.close();
  });

  const login = (token: string) => svc.post<LoginAnswer & { error?: { code: string } }>('/githubActionsLogin', { token }, { token: null });

  /** PUT /v2/impacted-targets with the login's token in x-trunk-token, its answer checked against the contract. */
  async function upload(token: string, body: Record<string, unknown>) {
    const res = await fetch(`${svc.url}/v2/impacted-targets`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-trunk-token': token },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const parsed: unknown = text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    checkAgainstContract('PUT', '/v2/impacted-targets', res.status, res.headers.get('content-type') ?? '', parsed);
    return { status: res.status, body: parsed as { error?: { code: string } } };
  }

  it("exchanges a pull request run's token for one that uploads that repository's impacted targets", async () => {
    const head = await q.pr(7);
    const res = await login(await issuer.issue({ repository, event_name: 'pull_request', audience: AUDIENCE }));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.repository).to.equal(repository);
    expect(new Date(res.body.expiresAt).getTime() - Date.now()).to.be.within(LOGIN_TTL_MS - 60_000, LOGIN_TTL_MS);
    expect(issuer.requests).to.include('GET /.well-known/jwks');
    const uploaded = await upload(res.body.token, {
      repositoryId: res.body.repositoryId,
      targetBranch: 'main',
      number: 7,
      sha: head,
      impactedTargets: ['//app:lib'],
    });
    expect(uploaded.status).to.equal(202);
    expect(await svc.ctx.mergeQueue.store.impactedTargets.get(q.queueId, 7, head)).to.deep.equal(['//app:lib']);

    // Nothing else: another v2 operation, v1, or another repository.
    const other = await fetch(`${svc.url}/v2/merge-queues`, { headers: { 'x-trunk-token': res.body.token } });
    expect([other.status, ((await other.json()) as { error: { code: string } }).error.code]).to.deep.equal([403, 'INSUFFICIENT_PERMISSIONS']);
    expect((await svc.post('/getQueue', q.ref, { token: res.body.token })).status).to.equal(401);
    const elsewhere = await makeQueue(svc);
    const found = await fetch(`${svc.url}/v2/repositories?providerUrl=https://github.com/acme/${elsewhere.ref.repo.name}`, {
      headers: { authorization: `Bearer ${(await svc.post<{ key: string }>('/createApiKey', { name: 'reader', permissions: [] })).body.key}` },
    });
    const otherId = ((await found.json()) as { data: { id: string }[] }).data[0]?.id;
    const refused = await upload(res.body.token, { repositoryId: otherId, targetBranch: 'main', number: 7, sha: head, impactsAllTargets: true });
    expect([refused.status, refused.body.error?.code]).to.deep.equal([403, 'INSUFFICIENT_PERMISSIONS']);

    // It lives 15 minutes.
    expect(await svc.ctx.accounts.store.tokens.authenticate(res.body.token, new Date(Date.now() + LOGIN_TTL_MS + 1000))).to.equal(null);
  });

  it('refuses tokens that are forged, expired, for another audience, of another event, or of a repository without a queue', async () => {
    const cases: [string, Promise<string>, number, string][] = [
      ['forged', issuer.forge({ repository, event_name: 'push', audience: AUDIENCE }), 401, 'github_actions_token_invalid'],
      ['expired', issuer.issue({ repository, event_name: 'push', audience: AUDIENCE, expiresIn: -60 }), 401, 'github_actions_token_invalid'],
      ['another audience', issuer.issue({ repository, event_name: 'push', audience: 'someone-else' }), 401, 'github_actions_token_invalid'],
      ['a comment run', issuer.issue({ repository, event_name: 'issue_comment', audience: AUDIENCE }), 403, 'github_actions_event_not_allowed'],
      ['no queue', issuer.issue({ repository: 'acme/no-queue-here', event_name: 'merge_group', audience: AUDIENCE }), 404, 'repository_not_found'],
    ];
    for (const [what, token, status, code] of cases) {
      const res = await login(await token);
      expect([res.status, res.body.error?.code], what).to.deep.equal([status, code]);
    }
    expect((await login('not.a.jwt')).status).to.equal(401);
  });
});
