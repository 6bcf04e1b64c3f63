// Publishing and delivering events. `publish` renders an event once and creates one delivery per
// subscribed endpoint, in order per order key (an event waits while an earlier one of its key is
// unpublished, and hands over when it is published); `deliver` sends one delivery, signed as
// Standard Webhooks specify, in order per order key, retrying with exponential backoff; an
// endpoint that has failed for a day is disabled. Runs in jobs only: a slow or dead receiver holds
// a delivery job, never the queue.
import { Webhook } from 'standardwebhooks';
import type { Logger } from '../logging.js';
import type { EventRepository } from './store/event-repository.js';
import type { EventFormat, EventPayload, Rendered, StoredEvent } from './event-types.js';
import { signingSecrets, type WebhookEndpoint, type WebhookEndpointRepository } from './store/webhook-endpoint-repository.js';
import type { WebhookDelivery, WebhookDeliveryRepository } from './store/webhook-delivery-repository.js';
import type { WebhookSender } from './egress/webhook-sender.js';

export interface DeliverySettings {
  /** Delay before the first retry; each further retry waits twice as long. */
  retryBaseMs: number;
  /** Attempts in all before a delivery fails for good. */
  maxAttempts: number;
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number;
  /** Deliveries sent to one endpoint at once: a slow receiver holds at most this many delivery jobs, never all of them. */
  endpointConcurrency: number;
}

/** A delivery that finds its endpoint at its cap is tried again this much later. */
const BUSY_ENDPOINT_DELAY_MS = 1_000;

export interface WebhookDispatcherDeps {
  events: EventRepository;
  endpoints: WebhookEndpointRepository;
  deliveries: WebhookDeliveryRepository;
  /** The products' events: how each renders its payloads and what Slack gets instead. */
  formats: readonly EventFormat[];
  /** Enqueues the delivery job of a delivery, to run no earlier than `at`. */
  enqueueDelivery: (deliveryId: string, at?: Date) => Promise<void>;
  enqueuePublish: (eventId: string, at?: Date) => Promise<void>;
  /** Moves events that a crash left in the outboxes of documents into the event store (the sweep's first step). */
  outboxes: { sweep(now?: Date): Promise<number> };
  /** Sends a request to an allowed destination, bounded in time and bytes. */
  sender: WebhookSender;
  settings: DeliverySettings;
  logger: Logger;
}

/** Events and deliveries the sweep picks up: older than this and still not published or finished. */
const STALE_AFTER_MS = 60_000;
const SWEEP_BATCH = 200;
/** An event its format holds back ('wait') is tried again this much later… */
const RENDER_WAIT_MS = 500;
/** …but is held back no longer than this (a testing event whose run is never built is sent without a head). */
const MAX_RENDER_WAIT_MS = 10 * 60_000;

/** The `webhook-id` of an event: the same for every endpoint, attempt and redelivery. */
export const messageIdOf = (eventId: string) => `msg_${eventId}`;

export function retryDelayMs(settings: Pick<DeliverySettings, 'retryBaseMs'>, failedAttempts: number): number {
  return settings.retryBaseMs * 2 ** (failedAttempts - 1);
}

/** What a Slack endpoint gets instead of the JSON: the line of the payload's product (its type, for an unknown one). */
export function slackMessage(formats: readonly EventFormat[], payload: EventPayload): { text: string } {
  const type = String(payload.type);
  const format = formatOf(formats, type);
  return { text: format ? format.slackText(payload) : type };
}

const subscribed = (endpoint: WebhookEndpoint, event: StoredEvent) =>
  endpoint.enabled && (endpoint.events.length === 0 || endpoint.events.includes(event.type));

const formatOf = (formats: readonly EventFormat[], type: string) => formats.find((f) => f.types.includes(type));

export class WebhookDispatcher {
  constructor(private readonly deps: WebhookDispatcherDeps) {}

  async publish(eventId: string, now = new Date()): Promise<void> {
    const event = await this.deps.events.findById(eventId);
    if (!event || event.publishedAt) return;
    // In order per key: an earlier event of the same pull request, run or queue goes first.
    const first = await this.deps.events.earliestUnpublished(event.orderKey);
    if (first && first.id !== event.id) return;
    const payload = event.payload ?? (await this.render(event, now.getTime() - event.createdAt.getTime() < MAX_RENDER_WAIT_MS));
    if (payload === 'wait') {
      await this.deps.enqueuePublish(event.id, new Date(now.getTime() + RENDER_WAIT_MS));
      return;
    }
    const endpoints = payload ? (await this.deps.endpoints.list(event.orgId)).filter((e) => subscribed(e, event)) : [];
    const deliveries = await this.deps.deliveries.createAll(
      endpoints.map((e) => ({ orgId: event.orgId, endpointId: e.id, eventId: event.id, type: event.type, orderKey: event.orderKey, order: event.order })),
    );
    await this.deps.events.markPublished(event.id, payload);
    for (const d of deliveries) await this.deps.enqueueDelivery(d.id);
    const next = await this.deps.events.earliestUnpublished(event.orderKey);
    if (next) await this.deps.enqueuePublish(next.id);
  }

  /** The payload of an event emitted without one, by its product's format; null when nothing can be sent. */
  private async render(event: StoredEvent, mayWait: boolean): Promise<Rendered> {
    const format = formatOf(this.deps.formats, event.type);
    if (format?.render) return format.render(event, mayWait);
    this.deps.logger.warn({ eventId: event.id, type: event.type }, 'event not delivered: nothing renders its payload');
    return null;
  }

  async deliver(deliveryId: string, now = new Date()): Promise<void> {
    const { deliveries, endpoints } = this.deps;
    const delivery = await deliveries.findById(deliveryId);
    if (!delivery || delivery.status === 'delivered' || delivery.status === 'failed') return;
    if (delivery.nextAttemptAt && delivery.nextAttemptAt > now) return; // its delayed job comes then
    const endpoint = await endpoints.findById(delivery.endpointId);
    if (!endpoint || !endpoint.enabled) {
      await deliveries.abandon(delivery.id, endpoint ? `endpoint disabled: ${endpoint.disabledReason ?? ''}` : 'endpoint deleted');
      await this.continueAfter(delivery);
      return;
    }
    // In order per key: an earlier delivery still unfinished goes first and hands over when done.
    const first = await deliveries.earliestUnfinished(delivery.endpointId, delivery.orderKey);
    if (first && first.id !== delivery.id) return;
    const until = new Date(now.getTime() + this.deps.sender.timeoutMs * 2);
    const slot = await endpoints.acquireSlot(endpoint.id, this.deps.settings.endpointConcurrency, delivery.id, until, now);
    if (slot === null) {
      await this.deps.enqueueDelivery(delivery.id, new Date(now.getTime() + BUSY_ENDPOINT_DELAY_MS));
      return;
    }
    try {
      if (!(await deliveries.claim(delivery.id, until, now))) return;
      await this.attempt(delivery, endpoint, now);
    } finally {
      await endpoints.releaseSlot(endpoint.id, slot, delivery.id);
    }
  }

  private async attempt(delivery: WebhookDelivery, endpoint: WebhookEndpoint, now: Date): Promise<void> {
    const { deliveries, endpoints } = this.deps;
    const event = await this.deps.events.findById(delivery.eventId);
    if (!event?.payload) {
      await deliveries.abandon(delivery.id, 'the event is no longer stored');
      await this.continueAfter(delivery);
      return;
    }
    const outcome = await this.send(endpoint, event.id, event.payload, now);
    if (outcome.ok) {
      await deliveries.finishAttempt(delivery.id, outcome, { status: 'delivered' });
      await endpoints.markHealthy(endpoint.id);
      await this.continueAfter(delivery);
      return;
    }
    await this.failed(delivery, endpoint, outcome, now);
  }

  private async failed(delivery: WebhookDelivery, endpoint: WebhookEndpoint, outcome: Attempt, now: Date): Promise<void> {
    const { deliveries, endpoints, settings } = this.deps;
    const failingSince = (await endpoints.markFailing(endpoint.id, now))?.failingSince ?? now;
    const attempts = delivery.attempts + 1;
    if (now.getTime() - failingSince.getTime() >= settings.disableAfterMs) {
      const reason = `every delivery failed since ${failingSince.toISOString()} (last: ${outcome.error ?? 'no answer'})`;
      await endpoints.update(endpoint.orgId, endpoint.id, { enabled: false, disabledReason: reason });
      this.deps.logger.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
      await deliveries.finishAttempt(delivery.id, outcome, { status: 'failed' });
      await this.continueAfter(delivery);
    } else if (attempts >= settings.maxAttempts) {
      await deliveries.finishAttempt(delivery.id, outcome, { status: 'failed' });
      await this.continueAfter(delivery);
    } else {
      // The delay counts from the end of the failed attempt, not from its start.
      const at = new Date(outcome.at.getTime() + outcome.durationMs + retryDelayMs(settings, attempts));
      await deliveries.finishAttempt(delivery.id, outcome, { status: 'retrying', at });
      await this.deps.enqueueDelivery(delivery.id, at);
    }
  }

  /** Hands over to the next delivery of the same endpoint and key, if any waits. */
  private async continueAfter(delivery: WebhookDelivery): Promise<void> {
    const next = await this.deps.deliveries.earliestUnfinished(delivery.endpointId, delivery.orderKey);
    if (next) await this.deps.enqueueDelivery(next.id, next.nextAttemptAt ?? undefined);
  }

  private async send(endpoint: WebhookEndpoint, eventId: string, payload: EventPayload, now: Date): Promise<Attempt> {
    const body = JSON.stringify(endpoint.kind === 'slack' ? slackMessage(this.deps.formats, payload) : payload);
    const id = messageIdOf(eventId);
    const signature = signingSecrets(endpoint, now)
      .map((secret) => new Webhook(secret).sign(id, now, body))
      .join(' ');
    const at = new Date();
    const outcome = await this.deps.sender.post(
      endpoint.url,
      {
        'content-type': 'application/json',
        'user-agent': 'openmq-webhooks',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    );
    return { ...outcome, at };
  }

  /**
   * Relays events a crash left in outboxes, publishes events and re-enqueues deliveries whose jobs
   * were lost (a crash, Redis down).
   */
  async sweep(now = new Date()): Promise<void> {
    await this.deps.outboxes.sweep(now);
    const before = new Date(now.getTime() - STALE_AFTER_MS);
    for (const event of await this.deps.events.listUnpublished(before, SWEEP_BATCH)) await this.deps.enqueuePublish(event.id);
    for (const d of await this.deps.deliveries.listStale(before, SWEEP_BATCH)) await this.deps.enqueueDelivery(d.id, d.nextAttemptAt ?? undefined);
  }
}

interface Attempt {
  ok: boolean;
  at: Date;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}
