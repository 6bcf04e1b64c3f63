// v2 API keys as use cases: create (the value is shown once), list, revoke — for the API
// (createApiKey, listApiKeys, revokeApiKey), the CLI and the dashboard alike, each change audited
// with its actor. A key belongs to its organisation (it outlives the person who made it) and holds
// merge-queue permissions instead of a role (permissions.ts); only hashes are stored.
import { conflict, notFound } from '../errors.js';
import { auditActorOf, type AuditTrail } from '../audit/audit-log.js';
import type { Actor } from './actor.js';
import { requireRole } from './policy.js';
import { generateApiKey, type ApiToken, type TokenRepository } from './token-repository.js';
import { MERGE_QUEUE_PERMISSIONS, type MergeQueuePermission } from './permissions.js';

export interface CreatedApiKey {
  key: ApiToken;
  /** The value: shown once, never stored. */
  value: string;
}

/** A key an admin made (not the short-lived token of a GitHub Actions login). */
const isKey = (t: ApiToken) => t.permissions !== null && t.uploadsFor === null;

export class ApiKeyService {
  constructor(private readonly deps: { tokens: TokenRepository; audit: AuditTrail }) {}

  /** Admins only; the name is unique among the organisation's active keys. */
  async create(actor: Actor, init: { name: string; permissions: MergeQueuePermission[] }): Promise<CreatedApiKey> {
    requireRole(actor, 'admin', 'creating an API key');
    const active = await this.list(actor);
    if (active.some((k) => k.revokedAt === null && k.name === init.name)) {
      throw conflict('api_key_name_taken', `an active API key is already named "${init.name}"; revoke it or choose another name`);
    }
    // Stored in the catalogue's order, each once, whatever order the request gave.
    const permissions = MERGE_QUEUE_PERMISSIONS.filter((p) => init.permissions.includes(p));
    const value = generateApiKey();
    const key = await this.deps.tokens.register(actor.orgId, value, init.name, { role: 'read', permissions });
    await this.deps.audit.record({
      orgId: actor.orgId,
      actor: auditActorOf(actor),
      action: 'api_key.created',
      target: key.id,
      detail: { name: init.name, permissions },
    });
    return { key, value };
  }

  async list(actor: Actor): Promise<ApiToken[]> {
    requireRole(actor, 'admin', 'listing API keys');
    return (await this.deps.tokens.list(actor.orgId)).filter(isKey);
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    requireRole(actor, 'admin', 'revoking an API key');
    const key = await this.deps.tokens.findById(id);
    if (!key || !isKey(key) || key.orgId !== actor.orgId || !(await this.deps.tokens.revoke(id, { orgId: actor.orgId }))) {
      throw notFound('api_key_not_found', `no active API key with id ${id}`);
    }
    await this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action: 'api_key.revoked', target: id, detail: { name: key.name } });
  }
}
