// The queue's merge window as its users see it (getQueue, events): the closures holding some or
// all of its pull requests now and the next one to begin. The schedule watcher stores it when it
// changes, so a cached getQueue answer stays a function of stored data, and compares the stored
// one with the one it reads now to announce what began, what ended and what is about to begin —
// each once, whatever the number of processes and however often it looks.
import type { Closure, ClosureKind, MergeCalendar } from './merge-schedule.js';

export interface ClosureView {
  kind: ClosureKind;
  name: string;
  reason: string | null;
  /** Impacted targets it holds. */
  targets: string[];
  /** Path globs it holds (absent in windows stored before paths existed); with no targets either: every pull request. */
  paths?: string[];
  startsAt: Date;
  /** Null when it lasts past the calendar's horizon. */
  endsAt: Date | null;
}

/** Where the schedule in effect comes from: the queue's own (updateQueue), or `merge.schedule` of `.trunk/trunk.yaml`. */
export type ScheduleOrigin = 'queue' | 'trunk_config';

export interface QueueWindow {
  source: ScheduleOrigin | null;
  /** Why the repository's schedule is not applied (it cannot be used); null when nothing is wrong. */
  problem: string | null;
  /** The closures holding some or all pull requests now. */
  current: ClosureView[];
  /** The next closure to begin; null: none within the horizon. */
  next: ClosureView | null;
  /** Key (closureKey) of the closure whose announcement went out; null: none yet. */
  announced: string | null;
}

export function closureView(c: Closure, horizonEnd: number): ClosureView {
  return {
    kind: c.kind,
    name: c.name,
    reason: c.reason,
    targets: [...c.targets],
    paths: [...c.paths],
    startsAt: new Date(c.start),
    endsAt: !c.oneOff && c.end >= horizonEnd ? null : new Date(c.end),
  };
}

/** One closure's identity across looks: a recurring closure gets a new key each time it recurs. */
export const closureKey = (c: Pick<ClosureView, 'kind' | 'name' | 'startsAt'>): string => `${c.kind}:${c.name}:${c.startsAt.toISOString()}`;

/** The window at `now` (announced: as `previous` had it). */
export function queueWindowAt(calendar: MergeCalendar, source: ScheduleOrigin, now: Date, previous: QueueWindow | null): QueueWindow {
  const t = now.getTime();
  const view = (c: Closure) => closureView(c, calendar.horizonEnd);
  const current = calendar.closures.filter((c) => c.start <= t && t < c.end).map(view);
  const upcoming = calendar.closures.find((c) => c.start > t);
  return { source, problem: null, current, next: upcoming ? view(upcoming) : null, announced: previous?.announced ?? null };
}

export interface WindowChanges {
  started: ClosureView[];
  ended: ClosureView[];
  /** The next closure, when it begins within the schedule's announcement lead and was not announced yet. */
  announce: ClosureView | null;
  /** What to store (announced updated). */
  window: QueueWindow;
}

export function windowChanges(previous: QueueWindow | null, now: QueueWindow, announceMinutes: number, at: Date): WindowChanges {
  const before = new Set((previous?.current ?? []).map(closureKey));
  const after = new Set(now.current.map(closureKey));
  const started = now.current.filter((c) => !before.has(closureKey(c)));
  const ended = (previous?.current ?? []).filter((c) => !after.has(closureKey(c)));
  const next = now.next;
  const due = next !== null && announceMinutes > 0 && next.startsAt.getTime() - at.getTime() <= announceMinutes * 60_000;
  const announce = due && now.announced !== closureKey(next) ? next : null;
  return { started, ended, announce, window: { ...now, announced: announce ? closureKey(announce) : now.announced } };
}

/** Whether storing `b` changes anything users or the watcher read. */
export function windowDiffers(a: QueueWindow | null, b: QueueWindow | null): boolean {
  return JSON.stringify(a) !== JSON.stringify(b);
}
