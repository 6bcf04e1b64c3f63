// The schedule watcher and the forecast (docs/merge-windows.md). Every round it reads each
// scheduled queue's window now, compares it with the stored one and stores what changed with the
// events it announces in one write (queue.freeze_announced with the forecast, .freeze_started,
// .freeze_ended), so each is announced once whatever the number of worker processes; a lost
// compare-and-set leaves it to the next round. The planner reads the schedule itself, to the
// second; the stored window is what getQueue shows and what the events compare against.
import { freezeEvent } from '../events/transition-events.js';
import { forecastBefore, type ForecastItem } from '../domain/freeze-forecast.js';
import { MergeCalendar } from '../domain/merge-schedule.js';
import { queueWindowAt, windowChanges, windowDiffers, type ClosureView, type QueueWindow } from '../domain/merge-window.js';
import type { Queue } from '../domain/model.js';
import type { MergeQueueEvent } from '../events/event-types.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { headKey } from '../store/impacted-targets-repository.js';
import type { TimeToMergeService } from './time-to-merge-service.js';
import type { Logger } from '../../platform/logging.js';
import { orderForDisplay } from '../domain/queue-order.js';

export interface Forecast {
  /** The window as it is now (not necessarily stored yet). */
  window: QueueWindow | null;
  /** The closure the forecast is for: the next to begin; null: none within the horizon (or no schedule). */
  closure: ClosureView | null;
  pullRequests: ForecastItem[];
}

export interface MergeWindowDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'impactedTargets'>;
  timeToMerge: Pick<TimeToMergeService, 'standings'>;
  logger: Logger;
  /** A closure that began or ended changes what may start. */
  requestPlan: (queueId: string, why: string) => Promise<void>;
}

export class MergeWindowService {
  constructor(private readonly deps: MergeWindowDeps) {}

  /** One round over every scheduled queue; a queue that fails is logged and left to the next round. */
  async watchAll(now = new Date()): Promise<void> {
    for (const queue of await this.deps.store.queues.listScheduled()) {
      try {
        await this.watch(queue, now);
      } catch (err) {
        this.deps.logger.error({ err, queueId: queue.id }, 'merge window not checked');
      }
    }
  }

  async watch(queue: Queue, now = new Date()): Promise<void> {
    const window = this.windowNow(queue, now);
    const changes = windowChanges(queue.mergeWindow, window ?? { current: [], next: null, announced: null }, queue.schedule?.announceMinutes ?? 0, now);
    const stored = window ? changes.window : null;
    if (!windowDiffers(queue.mergeWindow, stored)) return;
    const version = queue.version + 1;
    const events: MergeQueueEvent[] = [
      ...changes.ended.map((c) => freezeEvent(queue, 'queue.freeze_ended', c, null, now, version)),
      ...changes.started.map((c) => freezeEvent(queue, 'queue.freeze_started', c, null, now, version)),
    ];
    if (changes.announce) {
      const forecast = await this.forecastFor(queue, changes.announce, now);
      events.push(freezeEvent(queue, 'queue.freeze_announced', changes.announce, forecast, now, version));
    }
    if (!(await this.deps.store.queues.recordMergeWindow(queue.id, queue.version, stored, events, now))) return;
    for (const e of events) this.deps.logger.info({ queueId: queue.id, event: e.type, closure: e.subject.closure }, 'merge window changed');
    if (changes.started.length > 0 || changes.ended.length > 0) await this.deps.requestPlan(queue.id, 'a merge window opened or closed');
  }

  /** What is expected to land before the next closure begins. */
  async forecast(queue: Queue, now = new Date()): Promise<Forecast> {
    const window = this.windowNow(queue, now);
    const closure = window?.next ?? null;
    return { window, closure, pullRequests: closure ? await this.forecastFor(queue, closure, now) : [] };
  }

  private windowNow(queue: Queue, now: Date): QueueWindow | null {
    return queue.schedule ? queueWindowAt(new MergeCalendar(queue.schedule, now), now, queue.mergeWindow) : null;
  }

  private async forecastFor(queue: Queue, closure: ClosureView, now: Date): Promise<ForecastItem[]> {
    const active = orderForDisplay(await this.deps.store.entries.listActive(queue.id));
    const standings = await this.deps.timeToMerge.standings(queue, now);
    const targets =
      closure.targets.length > 0
        ? await this.deps.store.impactedTargets.getMany(
            queue.id,
            active.map((e) => ({ prNumber: e.prNumber, sha: e.prSha })),
          )
        : new Map();
    const line = active.map((e) => ({
      prNumber: e.prNumber,
      prTitle: e.prTitle,
      position: standings.get(e.id)?.position ?? 0,
      scope: { targets: targets.get(headKey({ prNumber: e.prNumber, sha: e.prSha })) ?? null, priorityValue: e.priorityValue },
      timeToMerge: standings.get(e.id)?.timeToMerge ?? null,
    }));
    return forecastBefore(closure, queue.schedule?.exceptPriorityAtMost ?? null, line, now);
  }
}
