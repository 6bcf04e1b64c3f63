// Webhook endpoints of an organisation: where events are delivered, which ones, and the signing
// secrets. Secrets are stored as given (they sign, so they cannot be hashed); a rotated-out secret
// keeps signing until it expires, so receivers can switch without losing deliveries.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../database/collection.js';

export const ENDPOINT_KINDS = ['standard', 'slack'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

export interface SigningSecret {
  /** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
  value: string;
  createdAt: Date;
  /** Null for the current secret; a rotated-out one signs until then. */
  expiresAt: Date | null;
}

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  kind: EndpointKind;
  /** Event types delivered; empty: every type. */
  events: string[];
  description: string;
  enabled: boolean;
  /** Why the endpoint was disabled (by its owner or after failing for a day); null when enabled. */
  disabledReason: string | null;
  /** Since when every delivery attempt failed; null after a success. */
  failingSince: Date | null;
  secrets: SigningSecret[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A delivery being sent to the endpoint: the endpoint has `concurrency` numbered slots, each held
 * by one delivery until it is released or its lease ends (a sender that died).
 */
interface SendingSlot {
  deliveryId: string;
  until: Date;
}

type EndpointDoc = StoredDoc & Omit<WebhookEndpoint, 'id'> & { slots?: Record<string, SendingSlot | null> };

export const ENDPOINT_INDEXES: IndexSpec[] = [
  { key: { orgId: 1, createdAt: 1 }, name: 'org_created', comment: "list an organisation's endpoints; fan an event out to them" },
];

export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export type EndpointPatch = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'enabled' | 'disabledReason' | 'failingSince'>>;

export interface WebhookEndpointRepository {
  create(orgId: string, init: { url: string; kind: EndpointKind; events: string[]; description: string }, now?: Date): Promise<WebhookEndpoint>;
  find(orgId: string, id: string): Promise<WebhookEndpoint | null>;
  findById(id: string): Promise<WebhookEndpoint | null>;
  list(orgId: string): Promise<WebhookEndpoint[]>;
  /** Null when there is no such endpoint. */
  update(orgId: string, id: string, patch: EndpointPatch, now?: Date): Promise<WebhookEndpoint | null>;
  delete(orgId: string, id: string): Promise<boolean>;
  /** A new current secret; the previous one expires `overlapMs` from now. Null: no such endpoint. */
  rotateSecret(orgId: string, id: string, overlapMs: number, now?: Date): Promise<WebhookEndpoint | null>;
  /** Records a failed attempt: sets failingSince unless already failing; answers the endpoint. */
  markFailing(id: string, now?: Date): Promise<WebhookEndpoint | null>;
  markHealthy(id: string): Promise<void>;
  /** Takes a free sending slot (of `concurrency`) for a delivery until `until`; null when all are held. */
  acquireSlot(id: string, concurrency: number, deliveryId: string, until: Date, now?: Date): Promise<number | null>;
  releaseSlot(id: string, slot: number, deliveryId: string): Promise<void>;
}

const toEndpoint = ({ _id, slots: _slots, ...rest }: EndpointDoc): WebhookEndpoint => ({ id: _id, ...rest });

export class DbWebhookEndpointRepository implements WebhookEndpointRepository {
  private readonly col: DocCollection<EndpointDoc>;
  constructor(db: Database) {
    this.col = db.collection<EndpointDoc>('webhook_endpoints');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(ENDPOINT_INDEXES);
  }

  async create(orgId: string, init: { url: string; kind: EndpointKind; events: string[]; description: string }, now = new Date()): Promise<WebhookEndpoint> {
    const doc: EndpointDoc = {
      _id: randomUUID(),
      orgId,
      ...init,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      secrets: [{ value: newSecret(), createdAt: now, expiresAt: null }],
      createdAt: now,
      updatedAt: now,
    };
    await this.col.insertOne(doc);
    return toEndpoint(doc);
  }

  async find(orgId: string, id: string): Promise<WebhookEndpoint | null> {
    const doc = await this.col.findOne({ _id: id, orgId });
    return doc ? toEndpoint(doc) : null;
  }

  async findById(id: string): Promise<WebhookEndpoint | null> {
    const doc = await this.col.findOne({ _id: id });
    return doc ? toEndpoint(doc) : null;
  }

  async list(orgId: string): Promise<WebhookEndpoint[]> {
    return (await this.col.find({ orgId }, { sort: { createdAt: 1 } })).map(toEndpoint);
  }

  async update(orgId: string, id: string, patch: EndpointPatch, now = new Date()): Promise<WebhookEndpoint | null> {
    const doc = await this.col.findOneAndUpdate({ _id: id, orgId }, { $set: { ...patch, updatedAt: now } });
    return doc ? toEndpoint(doc) : null;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    return (await this.col.deleteOne({ _id: id, orgId })).deletedCount === 1;
  }

  async rotateSecret(orgId: string, id: string, overlapMs: number, now = new Date()): Promise<WebhookEndpoint | null> {
    const current = await this.find(orgId, id);
    if (!current) return null;
    const expiresAt = new Date(now.getTime() + overlapMs);
    // Secrets already expired are dropped; the current one becomes the previous one.
    const kept = current.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => (s.expiresAt === null ? { ...s, expiresAt } : s));
    const secrets = [{ value: newSecret(), createdAt: now, expiresAt: null }, ...kept];
    const doc = await this.col.findOneAndUpdate({ _id: id, orgId }, { $set: { secrets, updatedAt: now } });
    return doc ? toEndpoint(doc) : null;
  }

  async markFailing(id: string, now = new Date()): Promise<WebhookEndpoint | null> {
    await this.col.updateOne({ _id: id, failingSince: null }, { $set: { failingSince: now } });
    return this.findById(id);
  }

  async markHealthy(id: string): Promise<void> {
    await this.col.updateOne({ _id: id, failingSince: { $ne: null } }, { $set: { failingSince: null } });
  }

  async acquireSlot(id: string, concurrency: number, deliveryId: string, until: Date, now = new Date()): Promise<number | null> {
    // Each slot is taken by a compare-and-set of its own: two senders never hold the same one.
    for (let slot = 0; slot < concurrency; slot++) {
      const path = `slots.${slot}`;
      const res = await this.col.updateOne(
        { _id: id, $or: [{ [path]: null }, { [`${path}.until`]: { $lt: now } }] },
        { $set: { [path]: { deliveryId, until } } },
      );
      if (res.modifiedCount === 1) return slot;
    }
    return null;
  }

  async releaseSlot(id: string, slot: number, deliveryId: string): Promise<void> {
    const path = `slots.${slot}`;
    await this.col.updateOne({ _id: id, [`${path}.deliveryId`]: deliveryId }, { $set: { [path]: null } });
  }
}

/** The secrets that sign a delivery now: the current one and those rotated out less than the overlap ago. */
export function signingSecrets(endpoint: Pick<WebhookEndpoint, 'secrets'>, now: Date): string[] {
  return endpoint.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => s.value);
}
