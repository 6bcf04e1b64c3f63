// POST /webhooks/github, minus HTTP. Before a byte of the body is read: the signature header must
// be well-formed, the delivery and event headers present and the declared length within GitHub's
// cap; unsigned or oversized requests cost nothing. The body is then read by at most
// MAX_READING requests at once, each holding at most MEMORY_BYTES in memory (the rest waits in a
// temporary file), while its HMAC-SHA256 with GITHUB_WEBHOOK_SECRET is computed chunk by chunk and
// compared in constant time. Only a body that matches is decoded, parsed (a body that is not a
// JSON object is a 400, never recorded) and recorded once per delivery id and once per act key
// (delivery-act-key.ts), then handed to a job, so the answer goes back to GitHub at once.
import { createHmac, timingSafeEqual } from 'node:crypto';
import pLimit from 'p-limit';
import { AppError, invalid } from '../../platform/errors.js';
import type { Logger } from '../../platform/logging.js';
import { BodyTooLarge, SpooledBody } from '../../platform/runtime/spooled-body.js';
import { actKeyOf } from '../domain/delivery-act-key.js';
import type { GitHubDeliveryRepository } from '../store/github-delivery-repository.js';
import type { GitHubWebhookEvents } from './webhook-events.js';

/** GitHub caps payloads at 25 MB. */
export const MAX_BODY_BYTES = 25 * 1024 * 1024;
/** Bodies of unauthenticated requests read at once, per process. */
export const MAX_READING = 4;
/** Requests waiting for a turn to be read before further ones are answered 503. */
export const MAX_WAITING = 32;
/** Of each body being read, at most this much is held in memory. */
export const MEMORY_BYTES = 256 * 1024;

export interface GitHubWebhooksDeps {
  secret: string;
  deliveries: GitHubDeliveryRepository;
  events: GitHubWebhookEvents;
  enqueue: (deliveryId: string) => Promise<void>;
  logger: Logger;
  /** Where bodies larger than MEMORY_BYTES wait while they are checked (default: the OS's). */
  spoolDir?: string;
}

export interface IncomingDelivery {
  event: string | undefined;
  deliveryId: string | undefined;
  signature: string | undefined;
  /** Content-Length as declared; null for a chunked body. */
  declaredLength: number | null;
  body: AsyncIterable<Buffer>;
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
const DELIVERY_ID = /^[0-9A-Za-z-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;

const badSignature = () => new AppError('unauthenticated', 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body');

export class GitHubWebhooks {
  private readonly reading = pLimit(MAX_READING);

  constructor(private readonly deps: GitHubWebhooksDeps) {}

  /** Verifies and records a delivery, then enqueues it; 'duplicate' when it was seen before. */
  async receive(d: IncomingDelivery): Promise<'accepted' | 'duplicate'> {
    const signature = d.signature ? SIGNATURE.exec(d.signature)?.[1] : undefined;
    if (!signature) throw badSignature();
    const { deliveryId, event } = d;
    if (!deliveryId || !DELIVERY_ID.test(deliveryId) || !event || !EVENT_NAME.test(event)) {
      throw invalid('invalid_delivery', 'X-GitHub-Delivery and X-GitHub-Event are required');
    }
    if (d.declaredLength !== null && d.declaredLength > MAX_BODY_BYTES) throw tooLarge();
    if (this.reading.pendingCount >= MAX_WAITING) {
      throw new AppError('unavailable', 'webhook_intake_busy', 'too many webhook deliveries are being read; retry shortly', [], { retryAfterSeconds: 5 });
    }
    const text = await this.reading(() => this.readSigned(d.body, Buffer.from(signature, 'hex')));
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = null;
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      throw invalid('invalid_payload', 'the delivery body is not a JSON object');
    }
    const actKey = actKeyOf(event, payload as Record<string, unknown>);
    if (!(await this.deps.deliveries.record(deliveryId, event, text, actKey))) return 'duplicate';
    await this.deps.enqueue(deliveryId);
    return 'accepted';
  }

  /** The body as text once its HMAC matched; nothing of it is decoded before. */
  private async readSigned(body: AsyncIterable<Buffer>, expected: Buffer): Promise<string> {
    const spooled = new SpooledBody({ memoryBytes: MEMORY_BYTES, maxBytes: MAX_BODY_BYTES }, this.deps.spoolDir);
    const hmac = createHmac('sha256', this.deps.secret);
    try {
      for await (const chunk of body) {
        hmac.update(chunk);
        await spooled.append(chunk);
      }
      if (spooled.size === 0 || !timingSafeEqual(hmac.digest(), expected)) throw badSignature();
      return await spooled.text();
    } catch (err) {
      if (err instanceof BodyTooLarge) throw tooLarge();
      throw err;
    } finally {
      await spooled.discard();
    }
  }

  /** The job: handles a recorded delivery once. */
  async process(deliveryId: string): Promise<void> {
    const delivery = await this.deps.deliveries.pending(deliveryId);
    if (!delivery) return;
    const outcome = await this.deps.events.handle(delivery);
    this.deps.logger.info({ deliveryId, event: delivery.event, outcome }, 'GitHub webhook processed');
    await this.deps.deliveries.markProcessed(deliveryId);
  }
}

function tooLarge(): AppError {
  return new AppError('too_large', 'payload_too_large', `webhook payloads are at most ${MAX_BODY_BYTES} bytes`);
}
