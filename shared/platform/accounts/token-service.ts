// API tokens as use cases: create (the value is shown once), list, revoke — for the API
// (createToken, listTokens, revokeToken) and `npm run token` alike, each change audited with
// its actor. Personal tokens are a person's own (createPersonalToken…, `openmq login`): made by
// the person signed in, never above their role, expiring after PERSONAL_TOKEN_DAYS.
import { AppError, notFound } from '../errors.js';
import { auditActorOf, type AuditTrail } from '../audit/audit-log.js';
import type { Actor, PersonActor } from './actor.js';
import { requireRole } from './policy.js';
import { generateToken, type ApiToken, type TokenRepository } from './token-repository.js';
import { roleAllows, type Role } from './roles.js';

export interface CreatedToken {
  token: ApiToken;
  /** The value: shown once, never stored. */
  value: string;
}

export interface TokenSettings {
  /** How long a personal token lives (PERSONAL_TOKEN_DAYS). */
  personalTokenDays: number;
}

/** Personal tokens are made by a person signed in to the dashboard, for themselves. */
function requirePerson(actor: Actor, what: string): PersonActor {
  if (actor.kind === 'person') return actor;
  throw new AppError('forbidden', 'person_required', `${what} needs a person signed in to the dashboard (or \`openmq login\`), not an API token`);
}

export class TokenService {
  constructor(private readonly deps: { tokens: TokenRepository; audit: AuditTrail; settings: TokenSettings }) {}

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
    // v2 API keys are listed by listApiKeys.
    return (await this.deps.tokens.list(actor.orgId)).filter((t) => t.permissions === null);
  }

  async createPersonal(actor: Actor, init: { name: string; role: Role }, now = new Date()): Promise<CreatedToken> {
    const person = requirePerson(actor, 'creating a personal token');
    // With roles per repository (GitHub) the token's role is a cap: each use is bounded by the
    // person's permission on the repository it names, read then.
    if (person.githubLogin === null && !roleAllows(person.role, init.role)) {
      throw new AppError('forbidden', 'role_above_your_own', `a personal token can have at most your own role (${person.role}), not ${init.role}`);
    }
    const value = generateToken();
    const expiresAt = new Date(now.getTime() + this.deps.settings.personalTokenDays * 86_400_000);
    const owner = { personId: person.personId, name: person.name, ...(person.githubLogin ? { githubLogin: person.githubLogin } : {}) };
    const token = await this.deps.tokens.register(person.orgId, value, init.name, { role: init.role, owner, expiresAt, now });
    await this.deps.audit.record(
      {
        orgId: person.orgId,
        actor: auditActorOf(person),
        action: 'token.created',
        target: token.id,
        detail: { name: init.name, role: init.role, personal: true },
      },
      now,
    );
    return { token, value };
  }

  async listPersonal(actor: Actor): Promise<ApiToken[]> {
    const person = requirePerson(actor, 'listing your personal tokens');
    return (await this.deps.tokens.listOwnedBy(person.personId)).filter((t) => t.orgId === person.orgId);
  }

  /** By the person, or by the personal token itself (`openmq logout`). */
  async revokePersonal(actor: Actor, id: string): Promise<void> {
    if (actor.kind === 'token' && actor.owner !== null && actor.tokenId === id) {
      await this.deps.tokens.revoke(id, { orgId: actor.orgId });
      await this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action: 'token.revoked', target: id, detail: { personal: true } });
      return;
    }
    const person = requirePerson(actor, 'revoking a personal token');
    const token = await this.deps.tokens.findById(id);
    // Another person's token, or the organisation's, is answered as if it did not exist.
    if (!token || token.owner?.personId !== person.personId || token.orgId !== person.orgId || !(await this.deps.tokens.revoke(id, { orgId: person.orgId }))) {
      throw notFound('token_not_found', `you have no active token with id ${id}`);
    }
    await this.deps.audit.record({ orgId: person.orgId, actor: auditActorOf(person), action: 'token.revoked', target: id, detail: { personal: true } });
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    requireRole(actor, 'admin', 'revoking a token');
    if (!(await this.deps.tokens.revoke(id, { orgId: actor.orgId }))) throw notFound('token_not_found', `no active token with id ${id}`);
    await this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action: 'token.revoked', target: id, detail: {} });
  }
}
