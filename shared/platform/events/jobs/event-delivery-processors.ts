// Event delivery's job processors: publish an event to its endpoints, deliver one delivery, and
// the periodic sweep that recovers what a crash or a lost job left. The work is the dispatcher's.
import type { ProcessorRegistry } from '../../jobs/job-catalogue.js';
import type { WebhookDispatcher } from '../webhook-dispatcher.js';
import type { EventDeliveryJobs } from './event-delivery-jobs.js';

export function eventDeliveryProcessors(dispatcher: Pick<WebhookDispatcher, 'publish' | 'deliver' | 'sweep'>): ProcessorRegistry<EventDeliveryJobs> {
  return {
    'publish-event': async (job) => dispatcher.publish(job.data.eventId),
    'deliver-webhook': async (job) => dispatcher.deliver(job.data.deliveryId),
    'event-sweep': async () => dispatcher.sweep(),
  };
}
