// Webhook endpoints: create, list, update, delete, rotate the secret, recent deliveries, redeliver.
import type { OperationRoutes } from '../../routing/operation-router.js';
import type { WebhookEndpoint } from '../../../shared/platform/events/store/webhook-endpoint-repository.js';
import type { WebhookDelivery } from '../../../shared/platform/events/store/webhook-delivery-repository.js';
import type { WebhookEndpointService } from '../../../shared/platform/events/webhook-endpoint-service.js';
import { messageIdOf } from '../../../shared/platform/events/webhook-dispatcher.js';
import { actorOf } from '../../middleware/auth.js';
import { parseCreateEndpoint, parseDeliveryId, parseEndpointId, parseListDeliveries, parseUpdateEndpoint } from '../schemas/webhook-endpoint-schemas.js';

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

export function registerWebhookRoutes(routes: OperationRoutes, webhooks: WebhookEndpointService): void {
  routes.handle('createWebhookEndpoint', async (ctx) => {
    const body = parseCreateEndpoint(ctx.request.body);
    const init = { url: body.url, kind: body.kind ?? 'standard', events: body.events ?? [], description: body.description ?? '' };
    const endpoint = await webhooks.create(actorOf(ctx.state), init);
    ctx.body = withSecret(endpoint);
  });

  routes.handle('listWebhookEndpoints', async (ctx) => {
    ctx.body = { endpoints: (await webhooks.list(actorOf(ctx.state))).map(endpointView) };
  });

  routes.handle('updateWebhookEndpoint', async (ctx) => {
    const { id, ...update } = parseUpdateEndpoint(ctx.request.body);
    const endpoint = await webhooks.update(actorOf(ctx.state), id, update);
    ctx.body = endpointView(endpoint);
  });

  routes.handle('deleteWebhookEndpoint', async (ctx) => {
    const { id } = parseEndpointId(ctx.request.body);
    await webhooks.delete(actorOf(ctx.state), id);
    ctx.body = {};
  });

  routes.handle('rotateWebhookSecret', async (ctx) => {
    const { id } = parseEndpointId(ctx.request.body);
    const endpoint = await webhooks.rotateSecret(actorOf(ctx.state), id);
    ctx.body = withSecret(endpoint);
  });

  routes.handle('listWebhookDeliveries', async (ctx) => {
    const body = parseListDeliveries(ctx.request.body);
    const deliveries = await webhooks.deliveries(actorOf(ctx.state), body.endpointId, body.limit ?? DEFAULT_DELIVERY_PAGE);
    ctx.body = { deliveries: deliveries.map(deliveryView) };
  });

  routes.handle('redeliverWebhook', async (ctx) => {
    const { deliveryId } = parseDeliveryId(ctx.request.body);
    ctx.body = deliveryView(await webhooks.redeliver(actorOf(ctx.state), deliveryId));
  });
}
