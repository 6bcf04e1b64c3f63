// A queue's digest (docs/digests.md): once a day or once a week, at a local time in a named time
// zone, what the queue did in the period that just ended — pull requests merged and how long they
// waited, ejections split by their verdict, CI runs and their cost, each objective measured over
// the period, and the flaky tests that cost the queue the most CI time. The period ends at the
// digest's local time, so a daily digest at 09:00 Berlin covers 09:00 yesterday to 09:00 today
// across a daylight-saving change (a 23- or 25-hour day).
import { DateTime, IANAZone } from 'luxon';
import { WEEKDAYS, type Weekday } from './merge-schedule.js';
import { VERDICT_KINDS, type VerdictKind } from './verdict-kinds.js';
import { levelOf, measure, percentile, type ObjectiveFacts, type ObjectiveLevel, type ObjectiveMetric, type QueueObjective } from './objectives.js';

export const DIGEST_CADENCES = ['daily', 'weekly'] as const;
export type DigestCadence = (typeof DIGEST_CADENCES)[number];

export interface DigestSetting {
  cadence: DigestCadence;
  /** Local time it goes out, `HH:MM`; the period ends there. */
  at: string;
  /** A weekly digest's day. */
  day: Weekday;
  /** IANA time zone `at` and `day` are read in. */
  timeZone: string;
}

export type DigestSettingInput = Pick<DigestSetting, 'cadence'> & Partial<Omit<DigestSetting, 'cadence'>>;

/** Defaults: 09:00 UTC, on Mondays for a weekly one. */
export function digestFrom(input: DigestSettingInput): DigestSetting {
  return { cadence: input.cadence, at: input.at ?? '09:00', day: input.day ?? 'mon', timeZone: input.timeZone ?? 'UTC' };
}

const HOUR_MINUTE = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function digestProblems(s: DigestSetting): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (!IANAZone.isValidZone(s.timeZone)) problems.push({ path: '/timeZone', message: `"${s.timeZone}" is not an IANA time zone` });
  if (!HOUR_MINUTE.test(s.at)) problems.push({ path: '/at', message: 'must be a local time HH:MM (00:00–23:59)' });
  return problems;
}

export interface DigestPeriod {
  from: Date;
  to: Date;
}

/** The latest period that has ended at `now`: it ends at the last `at` (on `day`, weekly) not after `now`. */
export function lastDigestPeriod(s: DigestSetting, now: Date): DigestPeriod {
  const local = DateTime.fromJSDate(now, { zone: s.timeZone });
  const [, hour, minute] = HOUR_MINUTE.exec(s.at) ?? ['', '09', '00'];
  let end = local.set({ hour: Number(hour), minute: Number(minute), second: 0, millisecond: 0 });
  if (s.cadence === 'weekly') end = end.minus({ days: (end.weekday - (WEEKDAYS.indexOf(s.day) + 1) + 7) % 7 });
  const step = s.cadence === 'daily' ? { days: 1 } : { weeks: 1 };
  if (end > local) end = end.minus(step);
  return { from: end.minus(step).toJSDate(), to: end.toJSDate() };
}

/** A flaky test that failed runs of the queue in the period, with the CI minutes of those runs. */
export interface FlakyCost {
  testId: string;
  name: string;
  failedRuns: number;
  ciMinutes: number;
}

export interface DigestObjective {
  metric: ObjectiveMetric;
  /** Measured over the whole period (head age: at its end); null: nothing to measure. */
  value: number | null;
  level: ObjectiveLevel;
  met: boolean;
}

export interface QueueDigest {
  cadence: DigestCadence;
  from: Date;
  to: Date;
  merged: { count: number; timeInQueueMinutes: { p50: number | null; p90: number | null } };
  ejected: { count: number; byVerdict: Record<VerdictKind, number> };
  testRuns: { started: number; ciMinutes: number; wastedCiMinutes: number };
  objectives: DigestObjective[];
  /** The costliest first, at most FLAKY_TESTS_LISTED. */
  flakyTests: FlakyCost[];
}

export const FLAKY_TESTS_LISTED = 5;

/** A digest as JSON carries it (the queue.digest event, getQueueDigest): the period's dates as ISO strings. */
export type DigestJson = Omit<QueueDigest, 'from' | 'to'> & { from: string; to: string };

export function digestJson(d: QueueDigest): DigestJson {
  return { ...d, from: d.from.toISOString(), to: d.to.toISOString() };
}

/** A failed run of the period: its CI minutes and the tests that failed in it that were known to be flaky. */
export interface FailedRunTests {
  ciMinutes: number;
  flakyTests: { id: string; name: string }[];
}

export interface DigestInput {
  setting: DigestSetting;
  period: DigestPeriod;
  /** History from the period's start on (merges, ejections with their verdicts, runs), as the objectives read it. */
  facts: ObjectiveFacts;
  cost: { testRunsStarted: number; ciMinutes: number; wastedCiMinutes: number };
  objectives: readonly QueueObjective[];
  failedRuns: readonly FailedRunTests[];
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The costliest flaky tests: by CI minutes of the runs they failed, then by how many. */
export function flakyCosts(runs: readonly FailedRunTests[]): FlakyCost[] {
  const byTest = new Map<string, FlakyCost>();
  for (const run of runs) {
    for (const t of run.flakyTests) {
      const cost = byTest.get(t.id) ?? { testId: t.id, name: t.name, failedRuns: 0, ciMinutes: 0 };
      cost.failedRuns += 1;
      cost.ciMinutes += run.ciMinutes;
      byTest.set(t.id, cost);
    }
  }
  return [...byTest.values()]
    .sort((a, b) => b.ciMinutes - a.ciMinutes || b.failedRuns - a.failedRuns || a.name.localeCompare(b.name))
    .slice(0, FLAKY_TESTS_LISTED)
    .map((c) => ({ ...c, ciMinutes: round(c.ciMinutes) }));
}

export function composeDigest(input: DigestInput): QueueDigest {
  const { period, facts } = input;
  const within = (d: Date) => d > period.from && d <= period.to;
  const merged = facts.merged.filter((m) => within(m.mergedAt));
  const ejected = facts.ejections.filter((e) => within(e.at));
  // What happened after the period's end (the digest goes out a little later) is the next one's.
  const inPeriod: ObjectiveFacts = { ...facts, merged, ejections: ejected, runsCreatedAt: facts.runsCreatedAt.filter(within) };
  const minutes = merged.map((m) => (m.mergedAt.getTime() - m.submittedAt.getTime()) / 60_000);
  const byVerdict = Object.fromEntries(VERDICT_KINDS.map((k) => [k, ejected.filter((e) => e.verdict === k).length])) as Record<VerdictKind, number>;
  const hours = (period.to.getTime() - period.from.getTime()) / 3_600_000;
  const objectives = input.objectives.map((o) => {
    const value = measure({ ...o, windowHours: hours }, inPeriod, period.to);
    const level = levelOf(o, value);
    return { metric: o.metric, value: value === null ? null : round(value), level, met: level === 'ok' };
  });
  const p = (q: number) => {
    const v = percentile(minutes, q);
    return v === null ? null : round(v);
  };
  return {
    cadence: input.setting.cadence,
    from: period.from,
    to: period.to,
    merged: { count: merged.length, timeInQueueMinutes: { p50: p(0.5), p90: p(0.9) } },
    ejected: { count: ejected.length, byVerdict },
    testRuns: { started: input.cost.testRunsStarted, ciMinutes: round(input.cost.ciMinutes), wastedCiMinutes: round(input.cost.wastedCiMinutes) },
    objectives,
    flakyTests: flakyCosts(input.failedRuns),
  };
}
