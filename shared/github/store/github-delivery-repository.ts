// GitHub webhook deliveries, keyed by X-GitHub-Delivery, and by what they ask for: the unique `_id`
// drops a delivery GitHub sends twice, and the unique `actKey` drops one whose body was replayed
// under a new delivery id (the header is not covered by the signature). The payload is kept only
// until its job has processed it; jobs carry the delivery id, never the payload. Records expire
// after RETENTION_DAYS (a TTL index, pruned by the database on its schedule).
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';

/** How long a delivery (and so its act key) is remembered; commands older than this are refused anyway (delivery-act-key.ts). */
export const RETENTION_DAYS = 30;

export interface WebhookDelivery {
  id: string;
  event: string;
  payload: unknown;
  receivedAt: Date;
  processedAt: Date | null;
}

interface DeliveryDoc extends StoredDoc {
  event: string;
  /** JSON text; null once processed. */
  payload: string | null;
  /** What the delivery asks for, when it asks for something that must happen once (delivery-act-key.ts). */
  actKey?: string;
  receivedAt: Date;
  processedAt: Date | null;
}

const INDEXES: IndexSpec[] = [
  {
    key: { actKey: 1 },
    name: 'act_key_unique',
    unique: true,
    partialFilterExpression: { actKey: { $type: 'string' } },
    comment: 'record: a replayed body under a new delivery id is a duplicate',
  },
  { key: { receivedAt: 1 }, name: 'expire', expireAfterSeconds: RETENTION_DAYS * 86_400, comment: 'deliveries are forgotten after RETENTION_DAYS' },
];

/** Recorded GitHub webhook deliveries, as the services see them (DbGitHubDeliveryRepository is the database's). */
export interface GitHubDeliveryRepository {
  /** Records a delivery; false when this delivery id, or this act key, was recorded before. */
  record(id: string, event: string, body: string, actKey: string | null, now?: Date): Promise<boolean>;
  /** The delivery still to process, or null (unknown, or processed already). */
  pending(id: string): Promise<WebhookDelivery | null>;
  markProcessed(id: string, now?: Date): Promise<void>;
}

export class DbGitHubDeliveryRepository implements GitHubDeliveryRepository {
  private readonly col: DocCollection<DeliveryDoc>;
  constructor(db: Database) {
    this.col = db.collection<DeliveryDoc>('github_webhook_deliveries');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(INDEXES);
  }

  /** Records a delivery; false when this delivery id, or this act key, was recorded before. */
  async record(id: string, event: string, body: string, actKey: string | null, now = new Date()): Promise<boolean> {
    try {
      await this.col.insertOne({ _id: id, event, payload: body, ...(actKey !== null ? { actKey } : {}), receivedAt: now, processedAt: null });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  /** The delivery still to process, or null (unknown, or processed already). */
  async pending(id: string): Promise<WebhookDelivery | null> {
    const d = await this.col.findOne({ _id: id });
    if (!d || d.payload === null) return null;
    return { id: d._id, event: d.event, payload: JSON.parse(d.payload) as unknown, receivedAt: d.receivedAt, processedAt: d.processedAt };
  }

  async markProcessed(id: string, now = new Date()): Promise<void> {
    await this.col.updateOne({ _id: id }, { $set: { payload: null, processedAt: now } });
  }
}
