// POST /webhooks/github, minus HTTP: a delivery is accepted only with a valid X-Hub-Signature-256
// (HMAC-SHA256 of the raw body with GITHUB_WEBHOOK_SECRET, compared in constant time by
// @octokit/webhooks-methods), recorded once per X-GitHub-Delivery and handed to a job, so the
// answer goes back to GitHub at once; the job does the work (webhook-events.ts).
import { verify } from '@octokit/webhooks-methods';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logging.js';
import type { WebhookDeliveryRepository } from './store/webhook-delivery-repository.js';
import type { GitHubWebhookEvents } from './webhook-events.js';

export interface GitHubWebhooksDeps {
  secret: string;
  deliveries: WebhookDeliveryRepository;
  events: GitHubWebhookEvents;
  enqueue: (deliveryId: string) => Promise<void>;
  logger: Logger;
}

export interface IncomingDelivery {
  event: string | undefined;
  deliveryId: string | undefined;
  signature: string | undefined;
  body: string;
}

const DELIVERY_ID = /^[0-9A-Za-z-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;

export class GitHubWebhooks {
  constructor(private readonly deps: GitHubWebhooksDeps) {}

  /** Verifies and records a delivery, then enqueues it; 'duplicate' when it was seen before. */
  async receive(d: IncomingDelivery): Promise<'accepted' | 'duplicate'> {
    if (!d.signature || !/^sha256=[0-9a-f]{64}$/.test(d.signature) || !(await verify(this.deps.secret, d.body, d.signature))) {
      throw new AppError('unauthenticated', 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body');
    }
    if (!d.deliveryId || !DELIVERY_ID.test(d.deliveryId) || !d.event || !EVENT_NAME.test(d.event)) {
      throw new AppError('invalid', 'invalid_delivery', 'X-GitHub-Delivery and X-GitHub-Event are required');
    }
    if (!(await this.deps.deliveries.record(d.deliveryId, d.event, d.body))) return 'duplicate';
    await this.deps.enqueue(d.deliveryId);
    return 'accepted';
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
