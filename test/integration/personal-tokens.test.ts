// Personal tokens (issue 27): a person signed in makes tokens of their own, at most their role,
// expiring after PERSONAL_TOKEN_DAYS, lists and revokes only their own; what a personal token
// does is audited under the token's and the person's names; an organisation token cannot make
// them; and each sign-in brings the person's tokens in line with their role (none without one).
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import type { Role } from '../../shared/platform/accounts/roles.js';

interface ErrorBody {
  error: { code: string; message: string };
}
interface TokenView {
  id: string;
  name: string;
  role: Role;
  owner: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  token?: string;
}

const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('personal tokens', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ env: { PERSONAL_TOKEN_DAYS: '30' } });
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
  });
  after(async () => {
    await svc.close();
  });

  async function person(login: string, role: Role | null) {
    const completed = {
      person: {
        personId: `oidc:${login}`,
        provider: 'oidc' as const,
        subject: login,
        login: null,
        name: `${login} <${login}@example.test>`,
        email: `${login}@example.test`,
      },
      role,
      next: '/',
    };
    if (role === null) {
      await svc.ctx.signIn.signIn.finish(completed).catch(() => undefined);
      return null;
    }
    const { secret, session } = await svc.ctx.signIn.signIn.finish(completed);
    return (path: string, body: unknown) =>
      svc.raw('POST', `/v1${path}`, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', cookie: `openmq_session=${secret}`, 'x-csrf-token': session.csrfToken },
      });
  }

  it('makes a token of the person, at most their role, expiring after PERSONAL_TOKEN_DAYS, audited under both names', async () => {
    const ada = (await person('ada', 'admin'))!;
    const res = await ada('/createPersonalToken', { name: 'laptop', role: 'admin' });
    expect(res.status).to.equal(200);
    const made = res.body as TokenView;
    expect(made).to.deep.include({ name: 'laptop', role: 'admin', owner: 'ada <ada@example.test>', revokedAt: null });
    const days = (Date.parse(made.expiresAt ?? '') - Date.now()) / 86_400_000;
    expect(days).to.be.within(29.99, 30.01);

    expect((await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: made.token ?? null })).status).to.equal(200);
    const audit = await svc.post<{ events: { action: string; actor: { kind: string; name: string } }[] }>('/listAuditEvents', { action: 'queue.updated' });
    expect(audit.body.events[0]?.actor).to.deep.include({ kind: 'token', name: 'laptop of ada <ada@example.test>' });
    expect((await svc.post('/updateQueue', { ...ref, state: 'running' })).status).to.equal(200);

    // The organisation's admins see it among the tokens, with its person.
    const all = await svc.post<{ tokens: TokenView[] }>('/listTokens', {});
    expect(all.body.tokens.find((t) => t.id === made.id)).to.deep.include({ owner: 'ada <ada@example.test>' });
  });

  it('refuses a role above the person’s, and a token asking for tokens of its own', async () => {
    const raj = (await person('raj', 'write'))!;
    const above = await raj('/createPersonalToken', { name: 'too much', role: 'admin' });
    expect(above.status).to.equal(403);
    expect((above.body as ErrorBody).error).to.deep.include({
      code: 'role_above_your_own',
      message: 'a personal token can have at most your own role (write), not admin',
    });
    const byToken = await svc.post<ErrorBody>('/createPersonalToken', { name: 'bot', role: 'read' });
    expect(byToken.status).to.equal(403);
    expect(byToken.body.error.code).to.equal('person_required');
  });

  it('lists and revokes only the person’s own tokens', async () => {
    const mia = (await person('mia', 'write'))!;
    const ben = (await person('ben', 'write'))!;
    const mine = (await mia('/createPersonalToken', { name: 'mia-ci', role: 'read' })).body as TokenView;
    await ben('/createPersonalToken', { name: 'ben-ci', role: 'read' });
    const listed = (await mia('/listPersonalTokens', {})).body as { tokens: TokenView[] };
    expect(listed.tokens.map((t) => t.name)).to.deep.equal(['mia-ci']);
    const stolen = await ben('/revokePersonalToken', { id: mine.id });
    expect(stolen.status).to.equal(404);
    expect((await svc.post('/getQueue', ref, { token: mine.token ?? null })).status).to.equal(200);
    expect((await mia('/revokePersonalToken', { id: mine.id })).status).to.equal(200);
    expect((await svc.post('/getQueue', ref, { token: mine.token ?? null })).status).to.equal(401);
  });

  it('stops authenticating a token past its expiry', async () => {
    const eve = (await person('eve', 'read'))!;
    const made = (await eve('/createPersonalToken', { name: 'short', role: 'read' })).body as TokenView;
    expect((await svc.post('/getQueue', ref, { token: made.token ?? null })).status).to.equal(200);
    await svc.ctx.db.collection('api_tokens').updateOne({ _id: made.id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await svc.post('/getQueue', ref, { token: made.token ?? null })).status).to.equal(401);
  });

  it('brings the person’s tokens down to their role at each sign-in, and revokes them when they have none', async () => {
    const kim = (await person('kim', 'admin'))!;
    const admin = (await kim('/createPersonalToken', { name: 'kim-admin', role: 'admin' })).body as TokenView;
    const reader = (await kim('/createPersonalToken', { name: 'kim-read', role: 'read' })).body as TokenView;
    const demoted = (await person('kim', 'write'))!;
    const roles = ((await demoted('/listPersonalTokens', {})).body as { tokens: TokenView[] }).tokens.map((t) => [t.name, t.role]);
    expect(roles).to.deep.equal([
      ['kim-admin', 'write'],
      ['kim-read', 'read'],
    ]);
    expect((await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: admin.token ?? null })).status).to.equal(403);
    await person('kim', null);
    expect((await svc.post('/getQueue', ref, { token: admin.token ?? null })).status).to.equal(401);
    expect((await svc.post('/getQueue', ref, { token: reader.token ?? null })).status).to.equal(401);
  });
});
