// One delivery per (endpoint, event): its status, attempts and the last attempt's outcome. Within
// an endpoint, deliveries of one order key (a pull request, a run, a queue) go out in event order:
// only the earliest unfinished one of a key may be sent.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../database/collection.js';
import { isDuplicateKeyError } from '../../database/collection.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const UNFINISHED: DeliveryStatus[] = ['pending', 'sending', 'retrying'];

export interface WebhookDelivery {
  /** `<eventId>.<endpointId>`: creating the deliveries of an event twice creates them once. */
  id: string;
  orgId: string;
  endpointId: string;
  eventId: string;
  type: string;
  orderKey: string;
  order: { at: Date; version: number };
  status: DeliveryStatus;
  /** Attempts that reached (or failed to reach) the receiver. */
  attempts: number;
  /** While retrying: not before this. */
  nextAttemptAt: Date | null;
  /** While sending: another job may take it over after this (its sender died). */
  claimedUntil: Date | null;
  lastAttemptAt: Date | null;
  responseCode: number | null;
  durationMs: number | null;
  error: string | null;
  createdAt: Date;
}

type DeliveryDoc = StoredDoc & Omit<WebhookDelivery, 'id'>;

export const DELIVERY_INDEXES: IndexSpec[] = [
  {
    key: { endpointId: 1, orderKey: 1, status: 1, 'order.at': 1, 'order.version': 1 },
    name: 'endpoint_order',
    comment: 'the earliest unfinished delivery of an order key (in-order delivery)',
  },
  { key: { endpointId: 1, createdAt: -1 }, name: 'endpoint_recent', comment: "an endpoint's recent deliveries" },
  { key: { status: 1, createdAt: 1 }, name: 'unfinished', comment: 'the sweep: deliveries whose job was lost' },
  { key: { createdAt: 1 }, name: 'expire', expireAfterSeconds: 30 * 86400, comment: 'deliveries are kept 30 days' },
];

export type DeliveryInit = Pick<WebhookDelivery, 'orgId' | 'endpointId' | 'eventId' | 'type' | 'orderKey' | 'order'>;

export interface AttemptOutcome {
  at: Date;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface WebhookDeliveryRepository {
  /** Creates the deliveries that do not exist yet; answers every one (new or not). */
  createAll(inits: DeliveryInit[], now?: Date): Promise<WebhookDelivery[]>;
  findById(id: string): Promise<WebhookDelivery | null>;
  find(orgId: string, id: string): Promise<WebhookDelivery | null>;
  earliestUnfinished(endpointId: string, orderKey: string): Promise<WebhookDelivery | null>;
  /** Takes a delivery to send it; false when it is finished, or being sent by a live job. */
  claim(id: string, until: Date, now?: Date): Promise<boolean>;
  finishAttempt(id: string, outcome: AttemptOutcome, next: { status: 'delivered' | 'failed' } | { status: 'retrying'; at: Date }): Promise<void>;
  /** Ends a delivery without an attempt (its endpoint is gone or disabled). */
  abandon(id: string, error: string): Promise<void>;
  /** Sends a delivery again, with a fresh retry budget and the same webhook-id. */
  reset(id: string): Promise<void>;
  listRecent(endpointId: string, limit: number): Promise<WebhookDelivery[]>;
  /** Unfinished deliveries created before `before` (the sweep re-enqueues them). */
  listStale(before: Date, limit: number): Promise<WebhookDelivery[]>;
  deleteOfEndpoint(endpointId: string): Promise<void>;
}

const toDelivery = ({ _id, ...rest }: DeliveryDoc): WebhookDelivery => ({ id: _id, ...rest });

export class DbWebhookDeliveryRepository implements WebhookDeliveryRepository {
  private readonly col: DocCollection<DeliveryDoc>;
  constructor(db: Database) {
    this.col = db.collection<DeliveryDoc>('webhook_deliveries');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(DELIVERY_INDEXES);
  }

  async createAll(inits: DeliveryInit[], now = new Date()): Promise<WebhookDelivery[]> {
    const out: WebhookDelivery[] = [];
    for (const init of inits) {
      const id = `${init.eventId}.${init.endpointId}`;
      const doc: DeliveryDoc = {
        _id: id,
        ...init,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: null,
        claimedUntil: null,
        lastAttemptAt: null,
        responseCode: null,
        durationMs: null,
        error: null,
        createdAt: now,
      };
      try {
        await this.col.insertOne(doc);
        out.push(toDelivery(doc));
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const existing = await this.findById(id);
        if (existing) out.push(existing);
      }
    }
    return out;
  }

  async findById(id: string): Promise<WebhookDelivery | null> {
    const doc = await this.col.findOne({ _id: id });
    return doc ? toDelivery(doc) : null;
  }

  async find(orgId: string, id: string): Promise<WebhookDelivery | null> {
    const doc = await this.col.findOne({ _id: id, orgId });
    return doc ? toDelivery(doc) : null;
  }

  async earliestUnfinished(endpointId: string, orderKey: string): Promise<WebhookDelivery | null> {
    const [doc] = await this.col.find({ endpointId, orderKey, status: { $in: UNFINISHED } }, { sort: { 'order.at': 1, 'order.version': 1, _id: 1 }, limit: 1 });
    return doc ? toDelivery(doc) : null;
  }

  async claim(id: string, until: Date, now = new Date()): Promise<boolean> {
    const res = await this.col.updateOne(
      { _id: id, $or: [{ status: { $in: ['pending', 'retrying'] } }, { status: 'sending', claimedUntil: { $lt: now } }] },
      { $set: { status: 'sending', claimedUntil: until } },
    );
    return res.modifiedCount === 1;
  }

  async finishAttempt(id: string, outcome: AttemptOutcome, next: { status: 'delivered' | 'failed' } | { status: 'retrying'; at: Date }): Promise<void> {
    await this.col.updateOne(
      { _id: id },
      {
        $set: {
          status: next.status,
          nextAttemptAt: next.status === 'retrying' ? next.at : null,
          claimedUntil: null,
          lastAttemptAt: outcome.at,
          responseCode: outcome.responseCode,
          durationMs: outcome.durationMs,
          error: outcome.error,
        },
        $inc: { attempts: 1 },
      },
    );
  }

  async abandon(id: string, error: string): Promise<void> {
    await this.col.updateOne({ _id: id, status: { $in: UNFINISHED } }, { $set: { status: 'failed', error, claimedUntil: null, nextAttemptAt: null } });
  }

  async reset(id: string): Promise<void> {
    await this.col.updateOne({ _id: id }, { $set: { status: 'pending', attempts: 0, nextAttemptAt: null, claimedUntil: null } });
  }

  async listRecent(endpointId: string, limit: number): Promise<WebhookDelivery[]> {
    return (await this.col.find({ endpointId }, { sort: { createdAt: -1, _id: -1 }, limit })).map(toDelivery);
  }

  async listStale(before: Date, limit: number): Promise<WebhookDelivery[]> {
    const docs = await this.col.find({ status: { $in: UNFINISHED }, createdAt: { $lt: before } }, { sort: { createdAt: 1 }, limit });
    return docs.map(toDelivery);
  }

  async deleteOfEndpoint(endpointId: string): Promise<void> {
    await this.col.deleteMany({ endpointId });
  }
}
