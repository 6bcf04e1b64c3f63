// What lands before the next closure begins: each queued pull request the closure holds, with its
// estimated time to merge (the ETA's estimate and range), is expected to land before it, may land,
// or will wait for the window to reopen. A run that could not finish before the closure does not
// start (planner/merge-windows.ts), so "lands" is the ETA's high end before the start.
import { appliesTo, excepted, type MergeSchedule, type WindowScope } from './merge-schedule.js';
import type { ClosureView } from './merge-window.js';
import type { TimeToMerge } from './time-to-merge.js';

export const FORECAST_OUTCOMES = ['lands', 'may_land', 'waits', 'not_held', 'unknown'] as const;
export type ForecastOutcome = (typeof FORECAST_OUTCOMES)[number];

export interface ForecastInput {
  prNumber: number;
  prTitle: string;
  position: number;
  scope: WindowScope;
  /** Null: no estimate (no run concluded in the last day, or not ready). */
  timeToMerge: TimeToMerge | null;
}

export interface ForecastItem {
  prNumber: number;
  prTitle: string;
  position: number;
  outcome: ForecastOutcome;
  estimatedMergeAt: Date | null;
  earliest: Date | null;
  latest: Date | null;
}

export function forecastBefore(closure: ClosureView, schedule: MergeSchedule, line: readonly ForecastInput[], now: Date): ForecastItem[] {
  const start = closure.startsAt.getTime();
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  return line.map((p) => {
    const t = p.timeToMerge;
    const base = { prNumber: p.prNumber, prTitle: p.prTitle, position: p.position };
    const times = t ? { estimatedMergeAt: at(t.estimate), earliest: at(t.low), latest: at(t.high) } : { estimatedMergeAt: null, earliest: null, latest: null };
    if (excepted(schedule, p.scope) || !appliesTo({ targets: closure.targets, paths: closure.paths ?? [] }, p.scope))
      return { ...base, ...times, outcome: 'not_held' };
    if (!t) return { ...base, ...times, outcome: 'unknown' };
    const outcome: ForecastOutcome = times.latest!.getTime() <= start ? 'lands' : times.estimatedMergeAt!.getTime() <= start ? 'may_land' : 'waits';
    return { ...base, ...times, outcome };
  });
}
