// Webhook endpoints: create, list, update, delete, rotate the secret, recent deliveries, redeliver.
// Every change is recorded in the audit trail with its actor (secrets never are).
import type Router from '@koa/router';
import type { AuditTrail } from '../../../shared/audit/store/audit-log.js';
import type { WebhookEndpoint } from '../../../shared/events/store/webhook-endpoint-repository.js';
import type { WebhookDelivery } from '../../../shared/events/store/webhook-delivery-repository.js';
import type { WebhookEndpointService } from '../../../shared/events/webhook-endpoint-service.js';
import { messageIdOf } from '../../../shared/events/webhook-dispatcher.js';
import { auditActorOf, authOf } from '../../middleware/auth.js';
import { parseCreateEndpoint, parseDeliveryId, parseEndpointId, parseListDeliveries, parseUpdateEndpoint } from '../schemas/webhook-schemas.js';

const DEFAULT_DELIVERY_PAGE = 50;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const endpointView = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  kind: e.kind,
  events: e.events,
  description: e.description,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  failingSince: iso(e.failingSince),
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
});

/** The current secret is the one without an expiry. */
const withSecret = (e: WebhookEndpoint) => ({ ...endpointView(e), secret: e.secrets.find((s) => s.expiresAt === null)?.value ?? '' });

const deliveryView = (d: WebhookDelivery) => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  webhookId: messageIdOf(d.eventId),
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  responseCode: d.responseCode,
  durationMs: d.durationMs,
  error: d.error,
  nextAttemptAt: iso(d.nextAttemptAt),
  lastAttemptAt: iso(d.lastAttemptAt),
  createdAt: d.createdAt.toISOString(),
});

export function registerWebhookRoutes(router: Router, webhooks: WebhookEndpointService, audit: AuditTrail): void {
  router.post('/createWebhookEndpoint', async (ctx) => {
    const body = parseCreateEndpoint(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const init = { url: body.url, kind: body.kind ?? 'standard', events: body.events ?? [], description: body.description ?? '' };
    const endpoint = await webhooks.create(orgId, init);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'webhook.created', target: endpoint.id, detail: init });
    ctx.body = withSecret(endpoint);
  });

  router.post('/listWebhookEndpoints', async (ctx) => {
    ctx.body = { endpoints: (await webhooks.list(authOf(ctx.state).orgId)).map(endpointView) };
  });

  router.post('/updateWebhookEndpoint', async (ctx) => {
    const { id, ...update } = parseUpdateEndpoint(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const endpoint = await webhooks.update(orgId, id, update);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'webhook.updated', target: id, detail: update });
    ctx.body = endpointView(endpoint);
  });

  router.post('/deleteWebhookEndpoint', async (ctx) => {
    const { id } = parseEndpointId(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    await webhooks.delete(orgId, id);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'webhook.deleted', target: id, detail: {} });
    ctx.body = {};
  });

  router.post('/rotateWebhookSecret', async (ctx) => {
    const { id } = parseEndpointId(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const endpoint = await webhooks.rotateSecret(orgId, id);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'webhook.secret_rotated', target: id, detail: {} });
    ctx.body = withSecret(endpoint);
  });

  router.post('/listWebhookDeliveries', async (ctx) => {
    const body = parseListDeliveries(ctx.request.body);
    const deliveries = await webhooks.deliveries(authOf(ctx.state).orgId, body.endpointId, body.limit ?? DEFAULT_DELIVERY_PAGE);
    ctx.body = { deliveries: deliveries.map(deliveryView) };
  });

  router.post('/redeliverWebhook', async (ctx) => {
    const { deliveryId } = parseDeliveryId(ctx.request.body);
    ctx.body = deliveryView(await webhooks.redeliver(authOf(ctx.state).orgId, deliveryId));
  });
}
