// The jobs of event delivery: publishing an event, one attempt of one delivery, and the sweep.
import Type from 'typebox';
import { jobSpec } from '../../jobs/job-catalogue.js';

export function eventDeliveryJobs(intervals: { reconcileSeconds: number }) {
  return {
    /** Render a domain event and create its deliveries to the subscribed webhook endpoints. */
    'publish-event': jobSpec({ payload: Type.Object({ eventId: Type.String({ minLength: 1 }) }), attempts: 5, backoffMs: 1000, concurrency: 4 }),
    /** One attempt of one delivery (endpoint, event); retries are new delayed jobs (docs/webhooks.md). */
    'deliver-webhook': jobSpec({
      payload: Type.Object({ deliveryId: Type.String({ minLength: 1 }) }),
      // These attempts cover the processor's own failures (database down); a receiver's failures
      // are retried by the dispatcher with its own backoff (WEBHOOK_RETRY_BASE_MS).
      attempts: 3,
      backoffMs: 1000,
      // Deliveries wait on receivers, not on this process: many at once.
      concurrency: 16,
    }),
    /** Periodic: move events out of outboxes, publish events and re-enqueue deliveries whose jobs were lost. */
    'event-sweep': jobSpec({ payload: Type.Object({}), attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: intervals.reconcileSeconds }),
  };
}

export type EventDeliveryJobs = ReturnType<typeof eventDeliveryJobs>;
