// The repositories of events and webhooks over one database, and their start-up index step.
import type { Database } from '../../database/collection.js';
import { DbEventRepository } from './event-repository.js';
import { DbWebhookEndpointRepository } from './webhook-endpoint-repository.js';
import { DbWebhookDeliveryRepository } from './webhook-delivery-repository.js';

export interface EventStore {
  events: DbEventRepository;
  endpoints: DbWebhookEndpointRepository;
  deliveries: DbWebhookDeliveryRepository;
}

export function createEventStore(db: Database): EventStore {
  return { events: new DbEventRepository(db), endpoints: new DbWebhookEndpointRepository(db), deliveries: new DbWebhookDeliveryRepository(db) };
}
