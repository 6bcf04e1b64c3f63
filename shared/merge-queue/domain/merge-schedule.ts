// Merge windows and freezes: when a queue may start testing and merge. A schedule names a time
// zone; recurring periods (days of the week, local hours), one-off freezes and holidays are read
// in it, so a window "09:00–17:00" stays 09:00–17:00 local across a daylight-saving change, and a
// period whose end is not after its start runs past midnight. Luxon does the calendar arithmetic
// (a local time that does not exist on a spring-forward day moves forward by the gap).
//
// The calendar turns a schedule into closures: absolute intervals in which some pull requests may
// not start or merge — outside every window (when windows are set), in a freeze, on a holiday. A
// freeze may hold only pull requests that impact given targets or change files under given path
// globs; pull requests at or above an exception priority, or carrying an exception label, pass
// every closure (an incident fix still lands).
import { DateTime, IANAZone } from 'luxon';
import { globProblem, pathMatcher } from './path-globs.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** What a pull request tested before a freeze began does once it passes: merge in the freeze, or wait for the window. */
export const IN_FLIGHT_AT_FREEZE = ['merge', 'hold'] as const;
export type InFlightAtFreeze = (typeof IN_FLIGHT_AT_FREEZE)[number];

/** On each of `days`, from `from` to `to` (local `HH:MM`); `to` not after `from` ends the next day (`to` = `from`: 24 hours). */
export interface DailyPeriod {
  days: Weekday[];
  from: string;
  to: string;
}

export interface ScheduleFreeze {
  /** Unique within the schedule; named in reasons, events and the forecast. */
  name: string;
  reason: string | null;
  /** A recurring freeze; null for a one-off one. */
  daily: DailyPeriod | null;
  /** A one-off freeze: ISO 8601 date-times (without an offset: read in the schedule's time zone); null for a recurring one. */
  from: string | null;
  to: string | null;
  /** Impacted targets it holds (a pull request with none of them passes). */
  targets: string[];
  /** Path globs it holds: a pull request changing a file one matches. With neither targets nor paths: every pull request. */
  paths: string[];
}

export interface Holiday {
  /** A local date, `YYYY-MM-DD`: frozen from its midnight to the next. */
  date: string;
  name: string;
}

export interface MergeSchedule {
  /** IANA time zone, e.g. `Europe/Berlin`. */
  timeZone: string;
  /** When set, pull requests start and merge only inside one of these. */
  windows: DailyPeriod[];
  freezes: ScheduleFreeze[];
  holidays: Holiday[];
  /** Pull requests with a priority value at or below this pass every closure (0: urgent only); null: none do. */
  exceptPriorityAtMost: number | null;
  /** Pull requests carrying one of these labels (letter case aside, as on GitHub) pass every closure. */
  exceptLabels: string[];
  inFlightAtFreeze: InFlightAtFreeze;
  /** How long before a closure of the whole queue begins it is announced with its forecast. */
  announceMinutes: number;
}

export type ClosureKind = 'outside_window' | 'freeze' | 'holiday';

/** An interval (epoch ms, end exclusive) in which the pull requests it applies to wait. */
export interface Closure {
  start: number;
  end: number;
  kind: ClosureKind;
  name: string;
  reason: string | null;
  /** Impacted targets it holds. */
  targets: readonly string[];
  /** Path globs it holds; with no targets either: every pull request. */
  paths: readonly string[];
  /** A one-off freeze: its end is known whatever the horizon (a recurring closure is cut at it). */
  oneOff: boolean;
}

/**
 * A pull request as a closure sees it: its impacted targets (null or `ALL`: it may touch
 * anything), the files it changes (null: not known, so it may touch anything), its labels and
 * its priority.
 */
export interface WindowScope {
  targets: readonly string[] | 'ALL' | null;
  paths: readonly string[] | null;
  labels: readonly string[];
  priorityValue: number;
}

/** Whether some freeze holds only pull requests that impact given targets: their impacted targets must be read. */
export const scopedByTargets = (s: MergeSchedule): boolean => s.freezes.some((f) => f.targets.length > 0);

/** Whether some freeze holds only pull requests that change files under given paths: their changed files must be read. */
export const scopedByPaths = (s: MergeSchedule): boolean => s.freezes.some((f) => f.paths.length > 0);

/** A queued pull request's scope from what was read about it (null: not read or not known). */
export function entryScope(
  e: { prLabels?: readonly string[]; priorityValue: number },
  targets: readonly string[] | 'ALL' | null,
  paths: readonly string[] | null,
): WindowScope {
  return { targets, paths, labels: e.prLabels ?? [], priorityValue: e.priorityValue };
}

/** The queue as a whole: any closure applies. */
export const WHOLE_QUEUE: WindowScope = { targets: 'ALL', paths: null, labels: [], priorityValue: Number.MAX_SAFE_INTEGER };

export type WindowState =
  /** `closesAt`: when the next closure that applies begins (null: none within the horizon). */
  | { open: true; closesAt: Date | null; next: Closure | null }
  /** `opensAt`: when the closures holding it end (null: not within the horizon). */
  | { open: false; opensAt: Date | null; closure: Closure };

const HOUR_MINUTE = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** How far ahead a calendar looks for recurring periods and holidays. */
export const CALENDAR_HORIZON_DAYS = 35;

export interface ScheduleProblem {
  path: string;
  message: string;
}

/** What is wrong with a schedule the wire shape admits (time zone, times, dates, names); empty when it is usable. */
export function scheduleProblems(s: MergeSchedule): ScheduleProblem[] {
  const problems: ScheduleProblem[] = [];
  if (!IANAZone.isValidZone(s.timeZone)) problems.push({ path: '/timeZone', message: `"${s.timeZone}" is not an IANA time zone` });
  const zone = IANAZone.isValidZone(s.timeZone) ? s.timeZone : 'UTC';
  const period = (p: DailyPeriod, path: string) => {
    if (!HOUR_MINUTE.test(p.from)) problems.push({ path: `${path}/from`, message: 'must be a local time HH:MM (00:00–23:59)' });
    if (!HOUR_MINUTE.test(p.to)) problems.push({ path: `${path}/to`, message: 'must be a local time HH:MM (00:00–23:59)' });
    if (p.days.length === 0) problems.push({ path: `${path}/days`, message: 'must name at least one day' });
  };
  s.windows.forEach((w, i) => period(w, `/windows/${i}`));
  const names = new Set<string>();
  s.freezes.forEach((f, i) => {
    const path = `/freezes/${i}`;
    if (names.has(f.name)) problems.push({ path: `${path}/name`, message: `"${f.name}" names another freeze too` });
    names.add(f.name);
    f.paths.forEach((glob, j) => {
      const problem = globProblem(glob);
      if (problem) problems.push({ path: `${path}/paths/${j}`, message: problem });
    });
    const oneOff = f.from !== null || f.to !== null;
    if (f.daily && oneOff) problems.push({ path, message: 'a freeze is either daily or from/to, not both' });
    else if (f.daily) period(f.daily, `${path}/daily`);
    else if (f.from === null || f.to === null) problems.push({ path, message: 'a freeze needs daily, or both from and to' });
    else {
      const from = oneOffInstant(f.from, zone);
      const to = oneOffInstant(f.to, zone);
      if (from === null) problems.push({ path: `${path}/from`, message: 'must be an ISO 8601 date-time' });
      if (to === null) problems.push({ path: `${path}/to`, message: 'must be an ISO 8601 date-time' });
      if (from !== null && to !== null && to <= from) problems.push({ path: `${path}/to`, message: 'must be after from' });
    }
  });
  s.holidays.forEach((h, i) => {
    if (!DATE.test(h.date) || !DateTime.fromISO(h.date, { zone }).isValid) problems.push({ path: `/holidays/${i}/date`, message: 'must be a date YYYY-MM-DD' });
  });
  return problems;
}

function oneOffInstant(text: string, zone: string): number | null {
  const t = DateTime.fromISO(text, { zone, setZone: false });
  return t.isValid ? t.toMillis() : null;
}

const minutesOf = (hhmm: string): [number, number] => {
  const m = HOUR_MINUTE.exec(hhmm);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
};

/** The intervals of a daily period that overlap [from, to]. */
function dailyIntervals(p: DailyPeriod, zone: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const [fh, fm] = minutesOf(p.from);
  const [th, tm] = minutesOf(p.to);
  const crossesMidnight = th * 60 + tm <= fh * 60 + fm;
  const last = DateTime.fromMillis(to, { zone }).startOf('day');
  for (let day = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 }); day <= last; day = day.plus({ days: 1 })) {
    if (!p.days.includes(WEEKDAYS[day.weekday - 1]!)) continue;
    const start = day.set({ hour: fh, minute: fm }).toMillis();
    const end = (crossesMidnight ? day.plus({ days: 1 }) : day).set({ hour: th, minute: tm }).toMillis();
    if (end > from && start < to) out.push([start, end]);
  }
  return out;
}

/** The parts of [from, to] that no window covers. */
function outsideWindows(windows: readonly DailyPeriod[], zone: string, from: number, to: number): [number, number][] {
  const covered = windows.flatMap((w) => dailyIntervals(w, zone, from - DAY_MS, to + DAY_MS)).sort((a, b) => a[0] - b[0]);
  const gaps: [number, number][] = [];
  let cursor = from;
  for (const [start, end] of covered) {
    if (start > cursor) gaps.push([cursor, Math.min(start, to)]);
    cursor = Math.max(cursor, end);
    if (cursor >= to) break;
  }
  if (cursor < to) gaps.push([cursor, to]);
  return gaps.filter(([a, b]) => b > a);
}

/** Every closure of a schedule from `from` on: recurring periods and holidays up to the horizon, one-off freezes whole. */
export function closuresOf(s: MergeSchedule, from: Date, horizonDays = CALENDAR_HORIZON_DAYS): Closure[] {
  const zone = s.timeZone;
  const start = from.getTime();
  const until = start + horizonDays * DAY_MS;
  const closures: Closure[] = [];
  if (s.windows.length > 0) {
    // From a week back (every window recurs weekly), so the gap `from` falls in starts where the
    // last window ended, not at `from`: the same closure has the same start whenever it is read.
    for (const [a, b] of outsideWindows(s.windows, zone, start - 8 * DAY_MS, until).filter(([, end]) => end > start)) {
      closures.push({ start: a, end: b, kind: 'outside_window', name: 'outside the merge windows', reason: null, targets: [], paths: [], oneOff: false });
    }
  }
  for (const f of s.freezes) {
    const base = { kind: 'freeze' as const, name: f.name, reason: f.reason, targets: f.targets, paths: f.paths, oneOff: f.daily === null };
    if (f.daily) {
      for (const [a, b] of dailyIntervals(f.daily, zone, start, until)) closures.push({ ...base, start: a, end: b });
    } else if (f.from !== null && f.to !== null) {
      const a = oneOffInstant(f.from, zone);
      const b = oneOffInstant(f.to, zone);
      if (a !== null && b !== null && b > start) closures.push({ ...base, start: a, end: b });
    }
  }
  for (const h of s.holidays) {
    const day = DateTime.fromISO(h.date, { zone }).startOf('day');
    const a = day.toMillis();
    const b = day.plus({ days: 1 }).toMillis();
    if (b > start && a < until) closures.push({ start: a, end: b, kind: 'holiday', name: h.name, reason: null, targets: [], paths: [], oneOff: false });
  }
  return closures.sort((x, y) => x.start - y.start || y.end - x.end);
}

/**
 * Whether a closure holds this pull request: the closure is not scoped, or the pull request meets
 * its targets or its paths. What is not known about the pull request (no impacted targets
 * uploaded, changed files not read) counts as meeting them: a freeze holds when in doubt.
 */
export function appliesTo(c: Pick<Closure, 'targets' | 'paths'>, scope: WindowScope): boolean {
  if (c.targets.length === 0 && c.paths.length === 0) return true;
  if (c.targets.length > 0 && (scope.targets === null || scope.targets === 'ALL' || scope.targets.some((t) => c.targets.includes(t)))) return true;
  if (c.paths.length > 0) {
    if (scope.paths === null) return true;
    const matches = pathMatcher(c.paths);
    return scope.paths.some((p) => matches(p));
  }
  return false;
}

/** Whether the pull request passes every closure: its priority or one of its labels is an exception. */
export function excepted(schedule: MergeSchedule, scope: WindowScope): boolean {
  if (schedule.exceptPriorityAtMost !== null && scope.priorityValue <= schedule.exceptPriorityAtMost) return true;
  if (schedule.exceptLabels.length === 0) return false;
  const labels = new Set(scope.labels.map((l) => l.toLowerCase()));
  return schedule.exceptLabels.some((l) => labels.has(l.toLowerCase()));
}

const KIND_WEIGHT: Record<ClosureKind, number> = { freeze: 0, holiday: 1, outside_window: 2 };

/** One schedule seen from one moment: which closures hold a pull request, and until when. */
export class MergeCalendar {
  readonly closures: readonly Closure[];
  /** Recurring closures are computed up to here (epoch ms). */
  readonly horizonEnd: number;

  constructor(
    readonly schedule: MergeSchedule,
    from: Date,
    horizonDays = CALENDAR_HORIZON_DAYS,
  ) {
    this.closures = closuresOf(schedule, from, horizonDays);
    this.horizonEnd = from.getTime() + horizonDays * DAY_MS;
  }

  /** The closures that hold this pull request (none when its priority or a label is an exception). */
  closuresFor(scope: WindowScope): Closure[] {
    if (excepted(this.schedule, scope)) return [];
    return this.closures.filter((c) => appliesTo(c, scope));
  }

  stateAt(scope: WindowScope, at: Date): WindowState {
    const t = at.getTime();
    const mine = this.closuresFor(scope);
    const holding = mine.filter((c) => c.start <= t && t < c.end);
    if (holding.length === 0) {
      const next = mine.find((c) => c.start > t) ?? null;
      return { open: true, closesAt: next ? new Date(next.start) : null, next };
    }
    // Back-to-back closures (a holiday on a weekend freeze) hold until the last of them ends.
    const chain = [...holding];
    let end = Math.max(...holding.map((c) => c.end));
    for (const c of mine) {
      if (c.start <= end && c.end > end) {
        end = c.end;
        chain.push(c);
      }
    }
    const closure = [...holding].sort((a, b) => KIND_WEIGHT[a.kind] - KIND_WEIGHT[b.kind] || b.end - a.end)[0]!;
    // A recurring closure reaching the horizon was cut there: where the chain really ends is not known.
    const unknownEnd = chain.some((c) => !c.oneOff && c.end >= this.horizonEnd);
    return { open: false, opensAt: unknownEnd ? null : new Date(end), closure };
  }
}

/** "a freeze (code freeze: release 4.2)", "a holiday (Christmas)", "outside the merge windows": how reasons name a closure. */
export function describeClosure(c: Closure): string {
  if (c.kind === 'outside_window') return c.name;
  const what = c.kind === 'freeze' ? `the freeze "${c.name}"` : `the holiday "${c.name}"`;
  return c.reason ? `${what} (${c.reason})` : what;
}

/** Why a pull request may not start a run now, and from when it may (null: not within the horizon). */
export interface WindowHold {
  until: number | null;
  detail: string;
}

/**
 * The hold on starting a run for `scope` at `now`: its window is closed, or closes before a run of
 * `runEstimateMs` could finish (null estimate: only a closed window holds). Null when it may start.
 */
export function windowHold(calendar: MergeCalendar, scope: WindowScope, now: number, runEstimateMs: number | null): WindowHold | null {
  const zone = calendar.schedule.timeZone;
  const state = calendar.stateAt(scope, new Date(now));
  if (!state.open) {
    const until = state.opensAt?.getTime() ?? null;
    return {
      until,
      detail: `the queue is closed for it: ${describeClosure(state.closure)}, until ${until === null ? 'further notice' : localTime(until, zone)}`,
    };
  }
  if (state.closesAt === null || state.next === null || runEstimateMs === null || now + runEstimateMs <= state.closesAt.getTime()) return null;
  const after = calendar.stateAt(scope, state.closesAt);
  const until = after.open ? state.closesAt.getTime() : (after.opensAt?.getTime() ?? null);
  const minutes = Math.ceil(runEstimateMs / 60_000);
  return { until, detail: `a run (about ${minutes} min) would not finish before ${describeClosure(state.next)} begins at ${localTime(state.closesAt, zone)}` };
}

/** A moment as the schedule's people read it: `2026-12-24 17:00 GMT+1`. */
export function localTime(at: Date | number, timeZone: string): string {
  return DateTime.fromMillis(typeof at === 'number' ? at : at.getTime(), { zone: timeZone }).toFormat("yyyy-LL-dd HH:mm 'GMT'Z");
}

/** A schedule as a client writes it: the time zone, and whatever else it sets (the rest takes the defaults). */
export type MergeScheduleInput = { timeZone: string } & Partial<Omit<MergeSchedule, 'timeZone' | 'freezes'>> & {
    freezes?: (Pick<ScheduleFreeze, 'name'> & Partial<Omit<ScheduleFreeze, 'name'>>)[];
  };

/** Defaults: no window (open unless frozen), no exception, in-flight work merges, announced an hour ahead. */
export function scheduleFrom(input: MergeScheduleInput): MergeSchedule {
  return {
    timeZone: input.timeZone,
    windows: input.windows ?? [],
    freezes: (input.freezes ?? []).map((f) => ({
      name: f.name,
      reason: f.reason ?? null,
      daily: f.daily ?? null,
      from: f.from ?? null,
      to: f.to ?? null,
      targets: [...new Set(f.targets ?? [])],
      paths: [...new Set(f.paths ?? [])],
    })),
    holidays: input.holidays ?? [],
    exceptPriorityAtMost: input.exceptPriorityAtMost ?? null,
    exceptLabels: [...new Set(input.exceptLabels ?? [])],
    inFlightAtFreeze: input.inFlightAtFreeze ?? 'merge',
    announceMinutes: input.announceMinutes ?? 60,
  };
}
