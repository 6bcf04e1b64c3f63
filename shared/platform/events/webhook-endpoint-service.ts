// Use cases of webhook endpoints: create (answers the secret once), list, update, delete, rotate
// the secret (the old one keeps signing for a day), recent deliveries, and redelivery of one. All
// of them are an admin's; every change is recorded in the audit trail with its actor. A URL is
// checked against the destination policy when it is registered or changed, and the audit trail
// records only its origin: a receiver URL (a Slack one above all) is itself a credential.
import { conflict, invalid, notFound } from '../errors.js';
import type { Actor } from '../accounts/actor.js';
import { requireRole } from '../accounts/policy.js';
import { auditActorOf, type AuditAction, type AuditTrail } from '../audit/audit-log.js';
import type { EndpointKind, EndpointPatch, WebhookEndpoint, WebhookEndpointRepository } from './store/webhook-endpoint-repository.js';
import type { WebhookDelivery, WebhookDeliveryRepository } from './store/webhook-delivery-repository.js';
import { DestinationRefused, type DestinationPolicy } from './egress/destination-policy.js';

/** How long a rotated-out secret keeps signing deliveries. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export interface EndpointUpdate {
  url?: string;
  events?: string[];
  description?: string;
  /** true re-enables a disabled endpoint (and forgets its failures); false disables it. */
  enabled?: boolean;
}

/** What the audit trail may show of a receiver URL: scheme, host and port, never path or query. */
export const destinationOf = (url: string) => new URL(url).origin;

export class WebhookEndpointService {
  constructor(
    private readonly deps: {
      endpoints: WebhookEndpointRepository;
      deliveries: WebhookDeliveryRepository;
      enqueueDelivery: (deliveryId: string) => Promise<void>;
      destinations: DestinationPolicy;
      audit: AuditTrail;
    },
  ) {}

  private async checkDestination(url: string): Promise<void> {
    try {
      await this.deps.destinations.check(url);
    } catch (err) {
      if (err instanceof DestinationRefused) throw invalid('webhook_destination_refused', err.message, [{ path: '/url', message: err.message }]);
      throw err;
    }
  }

  private audit(actor: Actor, action: AuditAction, target: string, detail: Record<string, unknown>): Promise<void> {
    return this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action, target, detail });
  }

  async create(actor: Actor, init: { url: string; kind: EndpointKind; events: string[]; description: string }): Promise<WebhookEndpoint> {
    requireRole(actor, 'admin', 'creating a webhook endpoint');
    await this.checkDestination(init.url);
    const endpoint = await this.deps.endpoints.create(actor.orgId, init);
    await this.audit(actor, 'webhook.created', endpoint.id, {
      destination: destinationOf(init.url),
      kind: init.kind,
      events: init.events,
      description: init.description,
    });
    return endpoint;
  }

  list(actor: Actor): Promise<WebhookEndpoint[]> {
    requireRole(actor, 'admin', 'listing webhook endpoints');
    return this.deps.endpoints.list(actor.orgId);
  }

  private async get(orgId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.endpoints.find(orgId, id);
    if (!endpoint) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    return endpoint;
  }

  async update(actor: Actor, id: string, update: EndpointUpdate): Promise<WebhookEndpoint> {
    requireRole(actor, 'admin', 'changing a webhook endpoint');
    const patch: EndpointPatch = {};
    if (update.url !== undefined) {
      await this.checkDestination(update.url);
      patch.url = update.url;
    }
    if (update.events !== undefined) patch.events = update.events;
    if (update.description !== undefined) patch.description = update.description;
    if (update.enabled === true) Object.assign(patch, { enabled: true, disabledReason: null, failingSince: null });
    if (update.enabled === false) Object.assign(patch, { enabled: false, disabledReason: 'disabled through the API' });
    const endpoint = await this.deps.endpoints.update(actor.orgId, id, patch);
    if (!endpoint) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    const { url, ...rest } = update;
    await this.audit(actor, 'webhook.updated', id, { ...rest, ...(url !== undefined ? { destination: destinationOf(url) } : {}) });
    return endpoint;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    requireRole(actor, 'admin', 'deleting a webhook endpoint');
    if (!(await this.deps.endpoints.delete(actor.orgId, id))) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    await this.deps.deliveries.deleteOfEndpoint(id);
    await this.audit(actor, 'webhook.deleted', id, {});
  }

  async rotateSecret(actor: Actor, id: string): Promise<WebhookEndpoint> {
    requireRole(actor, 'admin', "rotating a webhook endpoint's secret");
    const endpoint = await this.deps.endpoints.rotateSecret(actor.orgId, id, SECRET_OVERLAP_MS);
    if (!endpoint) throw notFound('webhook_endpoint_not_found', `no webhook endpoint with id ${id}`);
    await this.audit(actor, 'webhook.secret_rotated', id, {});
    return endpoint;
  }

  async deliveries(actor: Actor, endpointId: string, limit: number): Promise<WebhookDelivery[]> {
    requireRole(actor, 'admin', "reading a webhook endpoint's deliveries");
    await this.get(actor.orgId, endpointId);
    return this.deps.deliveries.listRecent(endpointId, limit);
  }

  /** Sends one delivery again, with the same webhook-id (receivers deduplicate by it). */
  async redeliver(actor: Actor, deliveryId: string): Promise<WebhookDelivery> {
    requireRole(actor, 'admin', 'redelivering a webhook');
    const delivery = await this.deps.deliveries.find(actor.orgId, deliveryId);
    if (!delivery) throw notFound('webhook_delivery_not_found', `no webhook delivery with id ${deliveryId}`);
    const endpoint = await this.get(actor.orgId, delivery.endpointId);
    if (!endpoint.enabled) throw conflict('webhook_endpoint_disabled', `webhook endpoint ${endpoint.id} is disabled; enable it first`);
    if (delivery.status === 'sending') throw conflict('webhook_delivery_in_progress', `delivery ${deliveryId} is being sent`);
    await this.deps.deliveries.reset(deliveryId);
    await this.deps.enqueueDelivery(deliveryId);
    await this.audit(actor, 'webhook.redelivered', deliveryId, { endpointId: endpoint.id, eventId: delivery.eventId });
    return (await this.deps.deliveries.findById(deliveryId)) ?? delivery;
  }
}
