// GitHub webhook deliveries, keyed by X-GitHub-Delivery: the unique `_id` is what deduplicates a
// delivery GitHub (or a replaying attacker with a captured body) sends twice. The payload is kept
// only until its job has processed it; jobs carry the delivery id, never the payload.
import type { Database, DocCollection, StoredDoc } from '../../../database/collection.js';
import { isDuplicateKeyError } from '../../../database/collection.js';

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
  receivedAt: Date;
  processedAt: Date | null;
}

export class WebhookDeliveryRepository {
  private readonly col: DocCollection<DeliveryDoc>;
  constructor(db: Database) {
    this.col = db.collection<DeliveryDoc>('github_webhook_deliveries');
  }

  /** Records a delivery; false when this delivery id was recorded before. */
  async record(id: string, event: string, body: string, now = new Date()): Promise<boolean> {
    try {
      await this.col.insertOne({ _id: id, event, payload: body, receivedAt: now, processedAt: null });
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
