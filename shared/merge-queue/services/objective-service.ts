// The objective watcher (docs/objectives.md): every round it measures each queue's objectives
// from stored history — merges, ejections and their verdicts, runs, the head of the queue — moves
// each objective's level as domain/objectives.ts decides, and stores the levels with the events
// their changes announce (queue.objective_breached / .objective_recovered) in one write, so each
// change is announced once whatever the number of worker processes.
import { advance, measure, type ObjectiveFacts, type ObjectiveStatus } from '../domain/objectives.js';
import type { Queue } from '../domain/model.js';
import { objectiveEvent } from '../events/transition-events.js';
import type { MergeQueueEvent } from '../events/event-types.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { VerdictService } from './verdict-service.js';
import type { Logger } from '../../platform/logging.js';
import { readQueueHistory } from './queue-history.js';

export interface ObjectiveDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns'>;
  verdicts: Pick<VerdictService, 'of'>;
  logger: Logger;
}

export class ObjectiveService {
  constructor(private readonly deps: ObjectiveDeps) {}

  /** One round over every queue with objectives (or levels left from removed ones); a queue that fails is left to the next round. */
  async evaluateAll(now = new Date()): Promise<void> {
    for (const queue of await this.deps.store.queues.listAll()) {
      if (queue.objectives.length === 0 && queue.objectiveStatus.length === 0) continue;
      try {
        await this.evaluate(queue, now);
      } catch (err) {
        this.deps.logger.error({ err, queueId: queue.id }, 'objectives not evaluated');
      }
    }
  }

  /** The objectives' levels after a measure at `now` (stored, with their events, unless the queue changed meanwhile). */
  async evaluate(queue: Queue, now = new Date()): Promise<ObjectiveStatus[]> {
    const facts = await this.facts(queue, now);
    const previous = new Map(queue.objectiveStatus.map((s) => [s.metric, s]));
    const events: MergeQueueEvent[] = [];
    const status = queue.objectives.map((o) => {
      const next = advance(o, previous.get(o.metric) ?? null, measure(o, facts, now), now);
      if (next.change)
        events.push(
          objectiveEvent(queue, next.change === 'breached' ? 'queue.objective_breached' : 'queue.objective_recovered', o, next.status, now, queue.version),
        );
      return next.status;
    });
    if (JSON.stringify(status) === JSON.stringify(queue.objectiveStatus)) return status;
    if (await this.deps.store.queues.recordObjectiveStatus(queue.id, queue.version, status, events, now)) {
      for (const e of events) this.deps.logger.warn({ queueId: queue.id, event: e.type, objective: e.subject.objective }, 'queue objective changed level');
    }
    return status;
  }

  private async facts(queue: Queue, now: Date): Promise<ObjectiveFacts> {
    if (queue.objectives.length === 0) return { merged: [], headSubmittedAt: null, runsCreatedAt: [], ejections: [] };
    const since = new Date(now.getTime() - Math.max(...queue.objectives.map((o) => o.windowHours)) * 3_600_000);
    return (await readQueueHistory(this.deps, queue, since)).facts;
  }
}
