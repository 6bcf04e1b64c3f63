// Roles (issue 14 §4): every operation of the table is tried with a read, a write and an admin
// token — refused with 403 exactly when the role is below the operation's — and every change of a
// queue, a token and a quarantine override lands in the audit trail with its actor.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { generateToken } from '../../shared/platform/accounts/token-repository.js';
import { ROLES, roleAllows, type Role } from '../../shared/platform/accounts/roles.js';
import { OPERATIONS } from '../../api/openapi/operations.js';
import { failingTestId, ORG, REPO } from './flaky-support.js';
import { PERSON_ONLY_OPERATIONS } from '../helpers/person-only-operations.js';

interface ErrorBody {
  error: { code: string; message: string };
}
interface AuditBody {
  events: {
    id: string;
    at: string;
    actor: { kind: string; tokenId: string | null; name: string };
    action: string;
    target: string;
    detail: Record<string, unknown>;
  }[];
  nextBefore?: string;
}

const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('roles and the audit trail', function () {
  let svc: TestService;
  const tokens = {} as Record<Role, string>;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    for (const role of ROLES) {
      tokens[role] = generateToken();
      await svc.ctx.accounts.store.tokens.register(svc.orgId, tokens[role], `${role} bot`, { role });
    }
  });
  afterEach(async () => {
    await svc.close();
  });

  it('refuses every operation to a role below its own with 403, and lets the others through', async () => {
    const guarded = OPERATIONS.filter((op) => op.access !== 'public');
    expect(guarded.length).to.be.greaterThan(20);
    for (const op of guarded) {
      for (const role of ROLES) {
        const res = await svc.raw(op.method.toUpperCase(), op.path, {
          headers: { 'content-type': 'application/json', 'x-api-token': tokens[role] },
          ...(op.method === 'get' ? {} : { body: '{}' }),
        });
        const label = `${op.operationId} as ${role}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        if (op.access !== 'public' && roleAllows(role, op.access)) {
          // Past the role check: the empty body is refused (400) or the request is served — or,
          // for a person's own tokens, the use case asks for a person instead of a token.
          if (res.status === 403)
            expect([(res.body as ErrorBody).error.code, PERSON_ONLY_OPERATIONS.includes(op.operationId)], label).to.deep.equal(['person_required', true]);
          else expect(res.status, label).not.to.be.oneOf([401, 500]);
          expect((res.body as Partial<ErrorBody>).error?.code, label).not.to.equal('route_not_found');
        } else {
          expect(res.status, label).to.equal(403);
          expect((res.body as ErrorBody).error.code, label).to.equal('role_not_allowed');
        }
      }
    }
  });

  it('lets only admin tokens submit urgent pull requests', async () => {
    await svc.post('/createQueue', ref);
    for (const priority of ['urgent', 'URGENT', 0]) {
      const res = await svc.post<ErrorBody>('/submitPullRequest', { ...ref, pr: { number: 1 }, priority }, { token: tokens.write });
      expect(res.status, String(priority)).to.equal(403);
      expect(res.body.error.message).to.include('urgent');
    }
    // A write token submits at other priorities; an admin token urgently (the PR does not exist: 404, past the role check).
    const high = await svc.post<ErrorBody>('/submitPullRequest', { ...ref, pr: { number: 1 }, priority: 'high' }, { token: tokens.write });
    expect(high.status).to.equal(404);
    const urgent = await svc.post<ErrorBody>('/submitPullRequest', { ...ref, pr: { number: 1 }, priority: 'urgent' }, { token: tokens.admin });
    expect(urgent.status).to.equal(404);
  });

  it('reads with a read token and changes nothing with it', async () => {
    await svc.post('/createQueue', ref);
    expect((await svc.post('/getQueue', ref, { token: tokens.read })).status).to.equal(200);
    expect((await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: tokens.read })).status).to.equal(403);
    expect((await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: tokens.write })).status).to.equal(403);
    const got = await svc.post<{ state: string }>('/getQueue', ref, { token: tokens.read });
    expect(got.body.state).to.equal('running');
  });

  it('treats a token stored before roles existed as admin', async () => {
    const legacy = generateToken();
    const saved = await svc.ctx.accounts.store.tokens.register(svc.orgId, legacy, 'legacy');
    await svc.ctx.db.collection('api_tokens').updateOne({ _id: saved.id }, { $unset: { role: '' } });
    const [stored] = await svc.ctx.db.collection('api_tokens').find({ _id: saved.id });
    expect(stored).not.to.have.property('role');
    expect((await svc.post('/createQueue', ref, { token: legacy })).status).to.equal(200);
    const list = await svc.post<{ tokens: { id: string; role: string }[] }>('/listTokens', {}, { token: legacy });
    expect(list.body.tokens.find((t) => t.id === saved.id)?.role).to.equal('admin');
  });

  it('creates tokens with a role, lists them without their values and revokes them', async () => {
    const created = await svc.post<{ id: string; token: string; role: string; name: string }>('/createToken', { name: 'dashboard', role: 'READ' });
    expect(created.status).to.equal(200);
    expect(created.body).to.include({ role: 'read', name: 'dashboard' });
    expect(created.body.token).to.match(/^omq_/);
    expect((await svc.post('/getQueue', ref, { token: created.body.token })).status).to.equal(404);
    expect((await svc.post('/createQueue', ref, { token: created.body.token })).status).to.equal(403);

    const list = await svc.post<{ tokens: Record<string, unknown>[] }>('/listTokens', {});
    expect(JSON.stringify(list.body)).not.to.include(created.body.token);
    expect(list.body.tokens.map((t) => t.id)).to.include(created.body.id);

    expect((await svc.post('/revokeToken', { id: created.body.id })).status).to.equal(200);
    expect((await svc.post('/getQueue', ref, { token: created.body.token })).status).to.equal(401);
    const again = await svc.post<ErrorBody>('/revokeToken', { id: created.body.id });
    expect(again.status).to.equal(404);
    expect(again.body.error.code).to.equal('token_not_found');
    expect((await svc.post('/createToken', { name: 'x', role: 'owner' })).status).to.equal(400);
  });

  it("never revokes another organisation's token", async () => {
    const other = await svc.addOrg('other');
    const [theirs] = await svc.ctx.accounts.store.tokens.list(other.orgId);
    expect((await svc.post('/revokeToken', { id: theirs!.id })).status).to.equal(404);
    expect((await svc.post('/listTokens', {}, { token: other.token })).status).to.equal(200);
  });

  it('records queue, token and quarantine-override changes with their actor, newest first, in pages', async () => {
    await svc.post('/createQueue', ref, { token: tokens.admin });
    await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: tokens.admin });
    await svc.post('/updateQueue', { ...ref, state: 'draining', concurrency: 3 }, { token: tokens.admin });
    const created = await svc.post<{ id: string }>('/createToken', { name: 'ci', role: 'write' }, { token: tokens.admin });
    await svc.post('/revokeToken', { id: created.body.id }, { token: tokens.admin });
    await svc.post('/deleteQueue', ref, { token: tokens.admin });
    // Refused and failed changes are not recorded.
    await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: tokens.read });
    await svc.post('/updateQueue', { ...ref, state: 'paused' }, { token: tokens.admin });

    const res = await svc.post<AuditBody>('/listAuditEvents', {}, { token: tokens.read });
    expect(res.status).to.equal(200);
    const adminActor = res.body.events[0]!.actor;
    expect(adminActor.name).to.equal('admin bot');
    expect(adminActor.kind).to.equal('token');
    expect(adminActor.tokenId).to.be.a('string');
    expect(res.body.events.map((e) => [e.action, e.target])).to.deep.equal([
      ['queue.deleted', 'github.com/acme/widgets:main'],
      ['token.revoked', created.body.id],
      ['token.created', created.body.id],
      ['queue.updated', 'github.com/acme/widgets:main'],
      ['queue.updated', 'github.com/acme/widgets:main'],
      ['queue.created', 'github.com/acme/widgets:main'],
    ]);
    expect(res.body.events[3]!.detail).to.deep.equal({ state: 'draining', concurrency: 3 });
    expect(res.body.events[2]!.detail).to.deep.equal({ name: 'ci', role: 'write' });
    for (const e of res.body.events) expect(Date.parse(e.at)).to.be.closeTo(Date.now(), 60_000);

    const first = await svc.post<AuditBody>('/listAuditEvents', { limit: 4 });
    expect(first.body.events).to.have.length(4);
    const second = await svc.post<AuditBody>('/listAuditEvents', { limit: 4, before: first.body.nextBefore });
    expect([...first.body.events, ...second.body.events].map((e) => e.id)).to.deep.equal(res.body.events.map((e) => e.id));
    expect(second.body.nextBefore).to.equal(undefined);
    const onlyTokens = await svc.post<AuditBody>('/listAuditEvents', { action: 'token.created' });
    expect(onlyTokens.body.events.map((e) => e.target)).to.deep.equal([created.body.id]);

    const other = await svc.addOrg('other');
    expect((await svc.post<AuditBody>('/listAuditEvents', {}, { token: other.token })).body.events).to.deep.equal([]);
  });

  it('records quarantine overrides with their actor', async () => {
    const testId = await failingTestId(svc);
    const body = { repo: REPO, org_url_slug: ORG, test_id: testId, override: 'NEVER_QUARANTINE', reason: 'known bad runner', actor: 'alice' };
    expect((await svc.post('/flaky-tests/set-quarantine-override', body, { token: tokens.write })).status).to.equal(403);
    expect((await svc.post('/flaky-tests/set-quarantine-override', body, { token: tokens.admin })).status).to.equal(200);
    const res = await svc.post<AuditBody>('/listAuditEvents', { action: 'quarantine.override_set' });
    expect(res.body.events).to.have.length(1);
    const admin = (await svc.ctx.accounts.store.tokens.list(svc.orgId)).find((t) => t.name === 'admin bot');
    expect(res.body.events[0]).to.deep.include({
      actor: { kind: 'token', tokenId: admin!.id, name: 'admin bot' },
      target: `github.com/acme/widgets:${testId}`,
      detail: { override: 'never', reason: 'known bad runner', onBehalfOf: 'alice' },
    });
  });
});
