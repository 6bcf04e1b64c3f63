// Emits a domain event after the state change it describes was written: the event is stored,
// then a job is asked to publish it. Emitting never fails the transition that caused it — the
// state is already written; an event whose publish job could not be enqueued is published by the
// periodic sweep, one that could not even be stored is logged.
import type { Logger } from '../logging.js';
import type { EventRepository } from './store/event-repository.js';
import type { EmittedEvent } from './event-types.js';

export interface EventEmitter {
  emit(event: EmittedEvent): Promise<void>;
}

export class EventOutbox implements EventEmitter {
  constructor(
    private readonly deps: {
      events: EventRepository;
      /** Enqueues the publish job of a stored event. */
      requestPublish: (eventId: string) => Promise<void>;
      logger: Logger;
    },
  ) {}

  async emit(event: EmittedEvent): Promise<void> {
    let id: string;
    try {
      id = (await this.deps.events.insert(event)).id;
    } catch (err) {
      this.deps.logger.error({ err, type: event.type, subject: event.subject }, 'domain event lost: it could not be stored');
      return;
    }
    try {
      await this.deps.requestPublish(id);
    } catch (err) {
      this.deps.logger.warn({ err: err instanceof Error ? err.message : String(err), eventId: id }, 'publish job not enqueued; the sweep publishes the event');
    }
  }
}
