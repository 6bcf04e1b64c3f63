// The objective watcher (docs/objectives.md): every round it measures each queue's objectives
// from stored history — merges, ejections and their verdicts, runs, the head of the queue — moves
// each objective's level as domain/objectives.ts decides, and stores the levels with the events
// their changes announce (queue.objective_breached / .objective_recovered) in one write, so each
// change is announced once whatever the number of worker processes.
import { advance, measure, type ObjectiveFacts, type ObjectiveStatus } from '../domain/objectives.js';
import type { Entry, Queue } from '../domain/model.js';
import { orderForDisplay } from '../domain/queue-order.js';
import type { VerdictKind } from '../domain/verdict.js';
import { objectiveEvent } from '../events/transition-events.js';
import type { MergeQueueEvent } from '../events/event-types.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { VerdictService } from './verdict-service.js';
import type { Logger } from '../../platform/logging.js';

/** Verdicts that say an ejection was not the author's fault (an interaction is partly theirs; unknown is not known). */
const NOT_ITS_FAULT: readonly VerdictKind[] = ['flaky', 'target_branch', 'infrastructure'];
/** Runs read per round at most (a queue's runs within its longest window). */
const MAX_RUNS = 100_000;

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
    const { store } = this.deps;
    if (queue.objectives.length === 0) return { merged: [], headSubmittedAt: null, runsCreatedAt: [], ejections: [] };
    const since = new Date(now.getTime() - Math.max(...queue.objectives.map((o) => o.windowHours)) * 3_600_000);
    const rows = await store.entries.listHistoriesChangedSince({ orgId: queue.orgId, queueIds: [queue.id] }, since);
    const merged: ObjectiveFacts['merged'] = [];
    const failedIds: string[] = [];
    for (const r of rows) {
      // The transition into the final state, not a timeline note recorded after it.
      const ended = r.history.findLast((h) => h.from !== h.to);
      if (ended?.to === 'merged' && r.history[0]) merged.push({ submittedAt: r.history[0].at, mergedAt: ended.at });
      if (ended?.to === 'failed') failedIds.push(r.id);
    }
    const failed = await store.entries.findByIds(failedIds);
    const ejections = await Promise.all(
      failed.map(async (e: Entry) => ({
        at: e.stateChangedAt,
        notItsFault: NOT_ITS_FAULT.includes((await this.deps.verdicts.of(queue, e))?.kind ?? 'unknown'),
      })),
    );
    const head = orderForDisplay(await store.entries.listActive(queue.id)).find((e) => e.state !== 'not_ready');
    const runs = await store.testRuns.listCreatedSince(queue.id, since, MAX_RUNS);
    return { merged, headSubmittedAt: head?.submittedAt ?? null, runsCreatedAt: runs.map((r) => r.createdAt), ejections };
  }
}
