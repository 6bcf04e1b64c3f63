// The audit trail: who changed what and when — queue settings and state, tokens, webhook
// endpoints, quarantine overrides — and who signed in to the dashboard. Entries are appended, never changed; ids are UUIDv7, so their
// order is the order in which they were recorded and serves as the page cursor.
import { v7 as uuidv7 } from 'uuid';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../database/collection.js';
import { describeActor, type Actor } from '../accounts/actor.js';

/** Who made a change, as recorded: a token (by id and name), a person signed in, a person on the forge, or an operator tool. */
export interface AuditActor {
  kind: Actor['kind'];
  tokenId: string | null;
  name: string;
}

export function auditActorOf(actor: Actor): AuditActor {
  // A token by its name (a personal one with its person's), anyone else as histories name them.
  const name = actor.kind !== 'token' ? describeActor(actor) : actor.owner ? `${actor.name} of ${actor.owner}` : actor.name;
  return { kind: actor.kind, tokenId: actor.kind === 'token' ? actor.tokenId : actor.kind === 'api_key' ? actor.keyId : null, name };
}

export const AUDIT_ACTIONS = [
  'queue.created',
  'queue.updated',
  'queue.deleted',
  'token.created',
  'token.revoked',
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.redelivered',
  'quarantine.override_set',
  'flaky_settings.updated',
  'github_repository.updated',
  'person.signed_in',
  'person.signed_out',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditRecord {
  orgId: string;
  actor: AuditActor;
  action: AuditAction;
  /** What changed, e.g. `github.com/acme/app:main`, a token id or a webhook endpoint id. */
  target: string;
  /** The change as asked (never a secret). */
  detail: Record<string, unknown>;
}

export interface AuditEntry extends AuditRecord {
  id: string;
  at: Date;
}

/** Where changes are recorded; the flaky-tests side records quarantine overrides through it. */
export interface AuditTrail {
  record(entry: AuditRecord, now?: Date): Promise<void>;
}

export interface AuditRepository extends AuditTrail {
  /** Newest first; `before` is the id of the last entry of the previous page. */
  list(orgId: string, opts: { limit: number; before?: string; action?: AuditAction }): Promise<AuditEntry[]>;
}

interface AuditDoc extends StoredDoc, Omit<AuditRecord, 'actor'> {
  at: Date;
  /** `kind` is absent from entries recorded before actors had one. */
  actor: Omit<AuditActor, 'kind'> & { kind?: AuditActor['kind'] };
}

export const AUDIT_INDEXES: IndexSpec[] = [{ key: { orgId: 1, _id: -1 }, name: 'org_newest', comment: "list an organisation's audit trail, newest first" }];

export class DbAuditRepository implements AuditRepository {
  private readonly col: DocCollection<AuditDoc>;
  constructor(db: Database) {
    this.col = db.collection<AuditDoc>('audit_log');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(AUDIT_INDEXES);
  }

  async record(entry: AuditRecord, now = new Date()): Promise<void> {
    await this.col.insertOne({ _id: uuidv7(), ...entry, at: now });
  }

  async list(orgId: string, opts: { limit: number; before?: string; action?: AuditAction }): Promise<AuditEntry[]> {
    const filter: Record<string, unknown> = { orgId };
    if (opts.before !== undefined) filter._id = { $lt: opts.before };
    if (opts.action !== undefined) filter.action = opts.action;
    const docs = await this.col.find(filter, { sort: { _id: -1 }, limit: opts.limit });
    // Entries recorded before actors had a kind: a token id means a token, none an operator tool.
    return docs.map(({ _id, actor, ...rest }) => ({ id: _id, ...rest, actor: { ...actor, kind: actor.kind ?? (actor.tokenId ? 'token' : 'operator') } }));
  }
}
