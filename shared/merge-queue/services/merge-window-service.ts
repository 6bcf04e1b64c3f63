// The schedule watcher and the forecast (docs/merge-windows.md). Every round it reads each
// scheduled queue's window now, compares it with the stored one and stores what changed with the
// events it announces in one write (queue.freeze_announced with the forecast, .freeze_started,
// .freeze_ended), so each is announced once whatever the number of worker processes; a lost
// compare-and-set leaves it to the next round. The planner reads the schedule itself, to the
// second; the stored window is what getQueue shows and what the events compare against.
import { freezeEvent } from '../events/transition-events.js';
import { forecastBefore, type ForecastItem } from '../domain/freeze-forecast.js';
import { MergeCalendar, entryScope, scopedByPaths, scopedByTargets, windowHold, type WindowHold, type WindowScope } from '../domain/merge-schedule.js';
import type { GitProvider, ProviderRegistry } from './provider.js';
import type { ChangedPathsSource } from './changed-paths-source.js';
import type { EffectiveSchedule, ScheduleSource } from './schedule-source.js';
import { typicalRunSeconds } from '../domain/time-to-merge.js';
import { queueWindowAt, windowChanges, windowDiffers, type ClosureView, type QueueWindow } from '../domain/merge-window.js';
import type { Entry, Queue } from '../domain/model.js';
import type { MergeQueueEvent } from '../events/event-types.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { headKey } from '../store/impacted-targets-repository.js';
import { recentRunSamples, type TimeToMergeService } from './time-to-merge-service.js';
import type { Logger } from '../../platform/logging.js';
import { orderForDisplay } from '../domain/queue-order.js';

export interface Forecast {
  /** The window as it is now (not necessarily stored yet). */
  window: QueueWindow | null;
  /** The closure the forecast is for: the next to begin; null: none within the horizon (or no schedule). */
  closure: ClosureView | null;
  pullRequests: ForecastItem[];
}

/** The schedule in effect, with the forge that serves the queue (null: no provider knows the repository). */
type ScheduleInEffect = EffectiveSchedule & { provider: GitProvider | null };

export interface MergeWindowDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'impactedTargets'>;
  providers: ProviderRegistry;
  schedules: ScheduleSource;
  changedPaths: ChangedPathsSource;
  timeToMerge: Pick<TimeToMergeService, 'standings'>;
  logger: Logger;
  /** A closure that began or ended changes what may start. */
  requestPlan: (queueId: string, why: string) => Promise<void>;
}

export class MergeWindowService {
  constructor(private readonly deps: MergeWindowDeps) {}

  /**
   * One round over every queue (a schedule may come from the repository's file); a queue that
   * fails is logged and left to the next round.
   */
  async watchAll(now = new Date()): Promise<void> {
    for (const queue of await this.deps.store.queues.listAll()) {
      try {
        await this.watch(queue, now);
      } catch (err) {
        this.deps.logger.error({ err, queueId: queue.id }, 'merge window not checked');
      }
    }
  }

  async watch(queue: Queue, now = new Date()): Promise<void> {
    const effective = await this.effectiveOf(queue);
    const window = windowNow(effective, queue.mergeWindow, now);
    const none: QueueWindow = { source: null, problem: effective.problem, current: [], next: null, announced: null };
    const changes = windowChanges(queue.mergeWindow, window ?? none, effective.schedule?.announceMinutes ?? 0, now);
    const stored = window ? changes.window : effective.problem ? none : null;
    if (!windowDiffers(queue.mergeWindow, stored)) return;
    const version = queue.version + 1;
    const events: MergeQueueEvent[] = [
      ...changes.ended.map((c) => freezeEvent(queue, 'queue.freeze_ended', c, null, now, version)),
      ...changes.started.map((c) => freezeEvent(queue, 'queue.freeze_started', c, null, now, version)),
    ];
    if (changes.announce) {
      const forecast = await this.forecastFor(queue, effective, changes.announce, now);
      events.push(freezeEvent(queue, 'queue.freeze_announced', changes.announce, forecast, now, version));
    }
    if (!(await this.deps.store.queues.recordMergeWindow(queue.id, queue.version, stored, events, now))) return;
    for (const e of events) this.deps.logger.info({ queueId: queue.id, event: e.type, closure: e.subject.closure }, 'merge window changed');
    if (changes.started.length > 0 || changes.ended.length > 0) await this.deps.requestPlan(queue.id, 'a merge window opened or closed');
  }

  /** What is expected to land before the next closure begins. */
  async forecast(queue: Queue, now = new Date()): Promise<Forecast> {
    const effective = await this.effectiveOf(queue);
    const window = windowNow(effective, queue.mergeWindow, now);
    const closure = window?.next ?? null;
    return { window, closure, pullRequests: closure ? await this.forecastFor(queue, effective, closure, now) : [] };
  }

  /** Why a pending pull request waits for a merge window now, as the planner decides it; null when it does not. */
  async holdOf(queue: Queue, entry: Entry, now = new Date()): Promise<WindowHold | null> {
    if (entry.state !== 'pending') return null;
    const effective = await this.effectiveOf(queue);
    const schedule = effective.schedule;
    if (!schedule) return null;
    const scope = (await this.scopesOf(queue, effective, [entry])).get(entry.id)!;
    const estimate = typicalRunSeconds(await recentRunSamples(this.deps.store, queue, now));
    return windowHold(new MergeCalendar(schedule, now), scope, now.getTime(), estimate === null ? null : estimate * 1000);
  }

  /** The schedule in effect: the queue's own, else the repository's at the target head the service last saw. */
  private async effectiveOf(queue: Queue): Promise<ScheduleInEffect> {
    const provider = await this.deps.providers.providerFor(queue.repo);
    if (!provider) return { schedule: queue.schedule, origin: queue.schedule ? 'queue' : null, problem: null, provider };
    return { ...(await this.deps.schedules.of(queue, provider, queue.observedTargetSha)), provider };
  }

  /** Each entry as the schedule's closures see it, reading targets and changed files only when a freeze is scoped by them. */
  private async scopesOf(queue: Queue, effective: ScheduleInEffect, entries: readonly Entry[]): Promise<Map<string, WindowScope>> {
    const { schedule, provider } = effective;
    const targets =
      schedule && scopedByTargets(schedule)
        ? await this.deps.store.impactedTargets.getMany(
            queue.id,
            entries.map((e) => ({ prNumber: e.prNumber, sha: e.prSha })),
          )
        : new Map<string, readonly string[] | 'ALL'>();
    const paths = schedule && provider && scopedByPaths(schedule) ? await this.deps.changedPaths.of(queue, provider, queue.observedTargetSha, entries) : {};
    return new Map(entries.map((e) => [e.id, entryScope(e, targets.get(headKey({ prNumber: e.prNumber, sha: e.prSha })) ?? null, paths[e.id] ?? null)]));
  }

  private async forecastFor(queue: Queue, effective: ScheduleInEffect, closure: ClosureView, now: Date): Promise<ForecastItem[]> {
    if (!effective.schedule) return [];
    const active = orderForDisplay(await this.deps.store.entries.listActive(queue.id));
    const standings = await this.deps.timeToMerge.standings(queue, now);
    const scopes = await this.scopesOf(queue, effective, active);
    const line = active.map((e) => ({
      prNumber: e.prNumber,
      prTitle: e.prTitle,
      position: standings.get(e.id)?.position ?? 0,
      scope: scopes.get(e.id)!,
      timeToMerge: standings.get(e.id)?.timeToMerge ?? null,
    }));
    return forecastBefore(closure, effective.schedule, line, now);
  }
}

function windowNow(effective: EffectiveSchedule, previous: QueueWindow | null, now: Date): QueueWindow | null {
  const { schedule, origin } = effective;
  return schedule && origin ? queueWindowAt(new MergeCalendar(schedule, now), origin, now, previous) : null;
}
