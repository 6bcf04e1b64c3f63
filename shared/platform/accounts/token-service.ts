// API tokens as use cases: create (the value is shown once), list, revoke — for the API
// (createToken, listTokens, revokeToken) and `npm run token` alike, each change audited with
// its actor.
import { notFound } from '../errors.js';
import { auditActorOf, type AuditTrail } from '../audit/audit-log.js';
import type { Actor } from './actor.js';
import { requireRole } from './policy.js';
import { generateToken, type ApiToken, type TokenRepository } from './token-repository.js';
import type { Role } from './roles.js';

export interface CreatedToken {
  token: ApiToken;
  /** The value: shown once, never stored. */
  value: string;
}

export class TokenService {
  constructor(private readonly deps: { tokens: TokenRepository; audit: AuditTrail }) {}

  async create(actor: Actor, init: { name: string; role: Role }): Promise<CreatedToken> {
    requireRole(actor, 'admin', 'creating a token');
    const value = generateToken();
    const token = await this.deps.tokens.register(actor.orgId, value, init.name, { role: init.role });
    await this.deps.audit.record({
      orgId: actor.orgId,
      actor: auditActorOf(actor),
      action: 'token.created',
      target: token.id,
      detail: { name: init.name, role: init.role },
    });
    return { token, value };
  }

  async list(actor: Actor): Promise<ApiToken[]> {
    requireRole(actor, 'admin', 'listing tokens');
    return this.deps.tokens.list(actor.orgId);
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    requireRole(actor, 'admin', 'revoking a token');
    if (!(await this.deps.tokens.revoke(id, { orgId: actor.orgId }))) throw notFound('token_not_found', `no active token with id ${id}`);
    await this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action: 'token.revoked', target: id, detail: {} });
  }
}
