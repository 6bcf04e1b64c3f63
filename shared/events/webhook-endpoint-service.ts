// Use cases of webhook endpoints: create (answers the secret once), list, update, delete, rotate
// the secret (the old one keeps signing for a day), recent deliveries, and redelivery of one.
import { conflict, notFound } from '../errors.js';
import type { EventType } from './event-types.js';
import type { EndpointKind, EndpointPatch, WebhookEndpoint, WebhookEndpointRepository } from './store/webhook-endpoint-repository.js';
import type { WebhookDelivery, WebhookDeliveryRepository } from './store/webhook-delivery-repository.js';

/** How long a rotated-out secret keeps signing deliveries. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export interface EndpointUpdate {
  url?: string;
  events?: EventType[];
  description?: string;
  /** true re-enables a disabled endpoint (and forgets its failures); false disables it. */
  enabled?: boolean;
}

export class WebhookEndpointService {
  constructor(
    private readonly deps: {
      endpoints: WebhookEndpointRepository;
      deliveries: WebhookDeliveryRepository;
      enqueueDelivery: (deliveryId: string) => Promise<void>;
    },
  ) {}

  create(orgId: string, init: { url: string; kind: EndpointKind; events: EventType[]; description: string }): Promise<WebhookEndpoint> {
    return this.deps.endpoints.create(orgId, init);
  }

  list(orgId: string): Promise<WebhookEndpoint[]> {
    return this.deps.endpoints.list(orgId);
  }

  async get(orgId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.endpoints.find(orgId, id);
    if (!endpoint) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    return endpoint;
  }

  async update(orgId: string, id: string, update: EndpointUpdate): Promise<WebhookEndpoint> {
    const patch: EndpointPatch = {};
    if (update.url !== undefined) patch.url = update.url;
    if (update.events !== undefined) patch.events = update.events;
    if (update.description !== undefined) patch.description = update.description;
    if (update.enabled === true) Object.assign(patch, { enabled: true, disabledReason: null, failingSince: null });
    if (update.enabled === false) Object.assign(patch, { enabled: false, disabledReason: 'disabled through the API' });
    const endpoint = await this.deps.endpoints.update(orgId, id, patch);
    if (!endpoint) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    return endpoint;
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!(await this.deps.endpoints.delete(orgId, id))) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    await this.deps.deliveries.deleteOfEndpoint(id);
  }

  async rotateSecret(orgId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.endpoints.rotateSecret(orgId, id, SECRET_OVERLAP_MS);
    if (!endpoint) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    return endpoint;
  }

  async deliveries(orgId: string, endpointId: string, limit: number): Promise<WebhookDelivery[]> {
    await this.get(orgId, endpointId);
    return this.deps.deliveries.listRecent(endpointId, limit);
  }

  /** Sends one delivery again, with the same webhook-id (receivers deduplicate by it). */
  async redeliver(orgId: string, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.deps.deliveries.find(orgId, deliveryId);
    if (!delivery) throw notFound('webhook_delivery_not_found', `no webhook delivery with id ${deliveryId}`);
    const endpoint = await this.get(orgId, delivery.endpointId);
    if (!endpoint.enabled) throw conflict('webhook_endpoint_disabled', `webhook endpoint ${endpoint.id} is disabled; enable it first`);
    if (delivery.status === 'sending') throw conflict('webhook_delivery_in_progress', `delivery ${deliveryId} is being sent`);
    await this.deps.deliveries.reset(deliveryId);
    await this.deps.enqueueDelivery(deliveryId);
    return (await this.deps.deliveries.findById(deliveryId)) ?? delivery;
  }
}
