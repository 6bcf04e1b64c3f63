// Event delivery, wired: the event log (events, endpoints, deliveries) with the relay that moves
// events out of the documents that wrote them, the endpoint use cases, the dispatcher, and its
// job processors. It knows no product: each gives its EventFormat and the outboxes it writes.
import type { AuditTrail } from '../audit/audit-log.js';
import type { Database } from '../database/collection.js';
import type { Enqueue, EnqueueMany, ProcessorRegistry } from '../jobs/job-catalogue.js';
import type { Logger } from '../logging.js';
import type { Shutdown } from '../runtime/shutdown.js';
import { DestinationPolicy, type AllowedDestinations } from './egress/destination-policy.js';
import { WebhookSender } from './egress/webhook-sender.js';
import type { EventFormat } from './event-types.js';
import type { EventDeliveryJobs } from './jobs/event-delivery-jobs.js';
import { eventDeliveryProcessors } from './jobs/event-delivery-processors.js';
import type { OutboxSource } from './outbox.js';
import { OutboxRelay } from './outbox-relay.js';
import { createEventStore, type EventStore } from './store/event-store.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookEndpointService } from './webhook-endpoint-service.js';

export interface WebhookSettings {
  /** Delay before a delivery's first retry; each further retry waits twice as long. */
  retryBaseMs: number;
  maxAttempts: number;
  /** An endpoint whose deliveries have all failed for this long is disabled. */
  disableAfterSeconds: number;
  /** How long a receiver has to answer. */
  timeoutMs: number;
  /** Deliveries sent to one endpoint at once. */
  endpointConcurrency: number;
  /** Internal destinations the operator allows (by host name or address range); none by default. */
  allowedDestinations: AllowedDestinations;
}

/** The event log: what the products' repositories need before event delivery is built (their writes relay events). */
export interface EventLog {
  store: EventStore;
  /** Moves events from a document's outbox into the event store right after its write. */
  relay: OutboxRelay;
}

export function openEventLog(db: Database, enqueueMany: EnqueueMany<EventDeliveryJobs>, logger: Logger): EventLog {
  const store = createEventStore(db);
  const relay = new OutboxRelay({
    events: store.events,
    requestPublish: (eventIds) =>
      enqueueMany(
        'publish-event',
        eventIds.map((eventId) => ({ eventId })),
      ),
    logger,
  });
  return { store, relay };
}

export interface EventsModule extends EventLog {
  /** Outbound webhook endpoints: create, list, update, delete, redeliver. */
  endpoints: WebhookEndpointService;
  dispatcher: WebhookDispatcher;
  processors: ProcessorRegistry<EventDeliveryJobs>;
}

export interface EventsModuleDeps {
  /** The products' events: names, payload rendering, Slack lines. */
  formats: readonly EventFormat[];
  /** Every document that holds an outbox (the sweep drains them). */
  outboxes: readonly OutboxSource[];
  settings: WebhookSettings;
  enqueue: Enqueue<EventDeliveryJobs>;
  audit: AuditTrail;
  shutdown: Shutdown;
  logger: Logger;
}

export function createEventsModule(log: EventLog, deps: EventsModuleDeps): EventsModule {
  const { store, relay } = log;
  const { settings, enqueue } = deps;
  for (const source of deps.outboxes) relay.addSource(source);
  const enqueueDelivery = (deliveryId: string, at?: Date) => enqueue('deliver-webhook', { deliveryId }, at ? { runAt: at } : {});
  const destinations = new DestinationPolicy(settings.allowedDestinations);
  const sender = new WebhookSender(destinations, settings.timeoutMs);
  deps.shutdown.add({ name: 'webhook-sender', order: 25, close: () => sender.close() });
  const dispatcher = new WebhookDispatcher({
    ...store,
    formats: deps.formats,
    enqueueDelivery,
    enqueuePublish: (eventId, at) => enqueue('publish-event', { eventId }, at ? { runAt: at } : {}),
    outboxes: relay,
    sender,
    settings: {
      retryBaseMs: settings.retryBaseMs,
      maxAttempts: settings.maxAttempts,
      disableAfterMs: settings.disableAfterSeconds * 1000,
      endpointConcurrency: settings.endpointConcurrency,
    },
    logger: deps.logger,
  });
  return {
    store,
    relay,
    endpoints: new WebhookEndpointService({ endpoints: store.endpoints, deliveries: store.deliveries, enqueueDelivery, destinations, audit: deps.audit }),
    dispatcher,
    processors: eventDeliveryProcessors(dispatcher),
  };
}
