// Administration: API tokens (create, list, revoke) and the audit trail.
import type Router from '@koa/router';
import type { TokenRepository, ApiToken } from '../../../shared/accounts/token-repository.js';
import { generateToken } from '../../../shared/accounts/token-repository.js';
import type { AuditRepository } from '../../../shared/audit/store/audit-log.js';
import { notFound } from '../../../shared/errors.js';
import { auditActorOf, authOf } from '../../middleware/auth.js';
import { parseCreateToken, parseEmptyRequest, parseListAuditEvents, parseTokenId } from '../schemas/account-schemas.js';

const DEFAULT_AUDIT_PAGE = 100;

const tokenView = (t: ApiToken) => ({
  id: t.id,
  name: t.name,
  role: t.role,
  createdAt: t.createdAt.toISOString(),
  revokedAt: t.revokedAt ? t.revokedAt.toISOString() : null,
});

export function registerAccountRoutes(router: Router, deps: { tokens: TokenRepository; audit: AuditRepository }): void {
  router.post('/createToken', async (ctx) => {
    const body = parseCreateToken(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const token = generateToken();
    const saved = await deps.tokens.register(orgId, token, body.name, { role: body.role });
    await deps.audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'token.created', target: saved.id, detail: { name: body.name, role: body.role } });
    ctx.body = { ...tokenView(saved), token };
  });

  router.post('/listTokens', async (ctx) => {
    parseEmptyRequest(ctx.request.body);
    ctx.body = { tokens: (await deps.tokens.list(authOf(ctx.state).orgId)).map(tokenView) };
  });

  router.post('/revokeToken', async (ctx) => {
    const { id } = parseTokenId(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    if (!(await deps.tokens.revoke(id, { orgId }))) throw notFound('token_not_found', `no active token with id ${id}`);
    await deps.audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'token.revoked', target: id, detail: {} });
    ctx.body = {};
  });

  router.post('/listAuditEvents', async (ctx) => {
    const body = parseListAuditEvents(ctx.request.body);
    const limit = body.limit ?? DEFAULT_AUDIT_PAGE;
    const events = await deps.audit.list(authOf(ctx.state).orgId, {
      limit,
      ...(body.before !== undefined ? { before: body.before } : {}),
      ...(body.action !== undefined ? { action: body.action } : {}),
    });
    const last = events.at(-1);
    ctx.body = {
      events: events.map((e) => ({ id: e.id, at: e.at.toISOString(), actor: e.actor, action: e.action, target: e.target, detail: e.detail })),
      ...(events.length === limit && last ? { nextBefore: last.id } : {}),
    };
  });
}
