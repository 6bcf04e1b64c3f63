// Administration: API tokens (create, list, revoke), a person's own tokens, and the audit trail.
import type { OperationRoutes } from '../../routing/operation-router.js';
import type { ApiToken } from '../../../shared/platform/accounts/token-repository.js';
import type { TokenService } from '../../../shared/platform/accounts/token-service.js';
import { isMergeQueuePermission } from '../../../shared/platform/accounts/permissions.js';
import type { ApiKeyService } from '../../../shared/platform/accounts/api-key-service.js';
import type { AuditRepository } from '../../../shared/platform/audit/audit-log.js';
import { actorOf } from '../../middleware/auth.js';
import { parseCreateApiKey, parseCreateToken, parseEmptyRequest, parseListAuditEvents, parseTokenId } from '../schemas/account-schemas.js';

const DEFAULT_AUDIT_PAGE = 100;

const tokenView = (t: ApiToken) => ({
  id: t.id,
  name: t.name,
  role: t.role,
  owner: t.owner?.name ?? null,
  createdAt: t.createdAt.toISOString(),
  expiresAt: t.expiresAt ? t.expiresAt.toISOString() : null,
  revokedAt: t.revokedAt ? t.revokedAt.toISOString() : null,
});

const apiKeyView = (k: ApiToken) => ({
  id: k.id,
  name: k.name,
  permissions: k.permissions ?? [],
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
});

export function registerAccountRoutes(routes: OperationRoutes, deps: { tokens: TokenService; apiKeys: ApiKeyService; audit: AuditRepository }): void {
  routes.handle('createApiKey', async (ctx) => {
    const body = parseCreateApiKey(ctx.request.body);
    const created = await deps.apiKeys.create(actorOf(ctx.state), { name: body.name, permissions: body.permissions.filter(isMergeQueuePermission) });
    ctx.body = { ...apiKeyView(created.key), key: created.value };
  });

  routes.handle('listApiKeys', async (ctx) => {
    parseEmptyRequest(ctx.request.body);
    ctx.body = { keys: (await deps.apiKeys.list(actorOf(ctx.state))).map(apiKeyView) };
  });

  routes.handle('revokeApiKey', async (ctx) => {
    const { id } = parseTokenId(ctx.request.body);
    await deps.apiKeys.revoke(actorOf(ctx.state), id);
    ctx.body = {};
  });

  routes.handle('createToken', async (ctx) => {
    const body = parseCreateToken(ctx.request.body);
    const created = await deps.tokens.create(actorOf(ctx.state), { name: body.name, role: body.role });
    ctx.body = { ...tokenView(created.token), token: created.value };
  });

  routes.handle('listTokens', async (ctx) => {
    parseEmptyRequest(ctx.request.body);
    ctx.body = { tokens: (await deps.tokens.list(actorOf(ctx.state))).map(tokenView) };
  });

  routes.handle('revokeToken', async (ctx) => {
    const { id } = parseTokenId(ctx.request.body);
    await deps.tokens.revoke(actorOf(ctx.state), id);
    ctx.body = {};
  });

  routes.handle('createPersonalToken', async (ctx) => {
    const body = parseCreateToken(ctx.request.body);
    const created = await deps.tokens.createPersonal(actorOf(ctx.state), { name: body.name, role: body.role });
    ctx.body = { ...tokenView(created.token), token: created.value };
  });

  routes.handle('listPersonalTokens', async (ctx) => {
    parseEmptyRequest(ctx.request.body);
    ctx.body = { tokens: (await deps.tokens.listPersonal(actorOf(ctx.state))).map(tokenView) };
  });

  routes.handle('revokePersonalToken', async (ctx) => {
    const { id } = parseTokenId(ctx.request.body);
    await deps.tokens.revokePersonal(actorOf(ctx.state), id);
    ctx.body = {};
  });

  routes.handle('listAuditEvents', async (ctx) => {
    const body = parseListAuditEvents(ctx.request.body);
    const limit = body.limit ?? DEFAULT_AUDIT_PAGE;
    const events = await deps.audit.list(actorOf(ctx.state).orgId, {
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
