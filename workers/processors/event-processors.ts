// Outbound events: publish an event to its endpoints, deliver one delivery, and the periodic sweep
// that recovers lost jobs. The work is the dispatcher's (shared/events/webhook-dispatcher.ts).
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function publishEventProcessor(ctx: ServiceContext): JobProcessor<'publish-event'> {
  return async (job) => ctx.services.webhookDispatcher.publish(job.data.eventId);
}

export function deliverWebhookProcessor(ctx: ServiceContext): JobProcessor<'deliver-webhook'> {
  return async (job) => ctx.services.webhookDispatcher.deliver(job.data.deliveryId);
}

export function eventSweepProcessor(ctx: ServiceContext): JobProcessor<'event-sweep'> {
  return async () => ctx.services.webhookDispatcher.sweep();
}
