// Queue objectives (docs/objectives.md): a queue declares levels for what its users feel — time in
// queue of merged pull requests (p50, p90), the age of the pull request at the head of the queue,
// CI runs per merged pull request, the share of ejections judged not the author's fault — each
// with a warning and a critical level, measured over a rolling window. A level is entered only
// after the measure has stayed at it for `forMinutes` (one slow run does not page anyone), and
// each entry into a level is one event: breached (warning or critical) or recovered (ok).
import type { VerdictKind } from './verdict-kinds.js';

export const OBJECTIVE_METRICS = ['time_in_queue_p50', 'time_in_queue_p90', 'head_age', 'ci_runs_per_merged', 'not_its_fault_share'] as const;
export type ObjectiveMetric = (typeof OBJECTIVE_METRICS)[number];

/** What each measure is in: minutes for times, runs for runs per merged pull request, a fraction (0–1) for the share. */
export const OBJECTIVE_UNITS: Readonly<Record<ObjectiveMetric, string>> = {
  time_in_queue_p50: 'minutes',
  time_in_queue_p90: 'minutes',
  head_age: 'minutes',
  ci_runs_per_merged: 'runs',
  not_its_fault_share: 'fraction',
};

export interface QueueObjective {
  metric: ObjectiveMetric;
  /** The measure at or above which the objective is at warning / critical (critical ≥ warning). */
  warning: number;
  critical: number;
  /** The rolling window the measure reads (head_age reads the queue now). */
  windowHours: number;
  /** How long the measure must stay at a new level before the objective enters it. */
  forMinutes: number;
}

export const OBJECTIVE_LEVELS = ['ok', 'warning', 'critical'] as const;
export type ObjectiveLevel = (typeof OBJECTIVE_LEVELS)[number];

export interface ObjectiveStatus {
  metric: ObjectiveMetric;
  level: ObjectiveLevel;
  /** Since when it is at `level` (when the measure first reached it). */
  since: Date;
  /** The last measure; null when there was nothing to measure (no merge, no ejection in the window). */
  value: number | null;
  /** A level the measure is at but has not held for `forMinutes` yet. */
  pending: { level: ObjectiveLevel; since: Date } | null;
}

/** What the measures read, from stored history: merges and ejections within the longest window, runs started in it, the head now. */
export interface ObjectiveFacts {
  merged: { submittedAt: Date; mergedAt: Date }[];
  /** When the pull request at the head of the queue (first in line, not merely not ready) was submitted; null: nothing queued. */
  headSubmittedAt: Date | null;
  /** Creation times of the queue's test runs (main and bisection). */
  runsCreatedAt: Date[];
  /** Pull requests that failed out of the queue, with whether their failure's verdict says it was not theirs. */
  ejections: { at: Date; verdict: VerdictKind }[];
}

const MINUTE = 60_000;

/** Verdicts that say an ejection was not the author's fault (an interaction is partly theirs; unknown is not known). */
export const NOT_ITS_FAULT: readonly VerdictKind[] = ['flaky', 'target_branch', 'infrastructure'];

/** The q-quantile of `values` (linear between ranks); null when there are none. */
export function percentile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

/** The objective's measure at `now`; null when the window holds nothing to measure. */
export function measure(o: QueueObjective, f: ObjectiveFacts, now: Date): number | null {
  const from = now.getTime() - o.windowHours * 3_600_000;
  const merged = f.merged.filter((m) => m.mergedAt.getTime() > from);
  const minutesInQueue = merged.map((m) => (m.mergedAt.getTime() - m.submittedAt.getTime()) / MINUTE);
  switch (o.metric) {
    case 'time_in_queue_p50':
      return percentile(minutesInQueue, 0.5);
    case 'time_in_queue_p90':
      return percentile(minutesInQueue, 0.9);
    case 'head_age':
      return f.headSubmittedAt ? Math.max(0, (now.getTime() - f.headSubmittedAt.getTime()) / MINUTE) : 0;
    case 'ci_runs_per_merged': {
      if (merged.length === 0) return null;
      return f.runsCreatedAt.filter((d) => d.getTime() > from).length / merged.length;
    }
    case 'not_its_fault_share': {
      const ejected = f.ejections.filter((e) => e.at.getTime() > from);
      return ejected.length === 0 ? null : ejected.filter((e) => NOT_ITS_FAULT.includes(e.verdict)).length / ejected.length;
    }
  }
}

export function levelOf(o: QueueObjective, value: number | null): ObjectiveLevel {
  if (value === null) return 'ok';
  return value >= o.critical ? 'critical' : value >= o.warning ? 'warning' : 'ok';
}

export type ObjectiveChange = 'breached' | 'recovered';

/**
 * The objective's status after a measure at `now` (previous: its last status, or none): the level
 * changes once the measure has held a new level for `forMinutes`, and the change is named.
 */
export function advance(
  o: QueueObjective,
  previous: ObjectiveStatus | null,
  value: number | null,
  now: Date,
): { status: ObjectiveStatus; change: ObjectiveChange | null } {
  const seen = levelOf(o, value);
  const prior: ObjectiveStatus = previous ?? { metric: o.metric, level: 'ok', since: now, value: null, pending: null };
  if (seen === prior.level) return { status: { ...prior, value, pending: null }, change: null };
  const pendingSince = prior.pending?.level === seen ? prior.pending.since : now;
  if (now.getTime() - pendingSince.getTime() < o.forMinutes * MINUTE) {
    return { status: { ...prior, value, pending: { level: seen, since: pendingSince } }, change: null };
  }
  return { status: { metric: o.metric, level: seen, since: pendingSince, value, pending: null }, change: seen === 'ok' ? 'recovered' : 'breached' };
}

export interface ObjectiveProblem {
  path: string;
  message: string;
}

/** What is wrong with a queue's objectives the wire shape admits: a metric twice, critical below warning. */
export function objectiveProblems(objectives: readonly QueueObjective[]): ObjectiveProblem[] {
  const problems: ObjectiveProblem[] = [];
  const seen = new Set<ObjectiveMetric>();
  objectives.forEach((o, i) => {
    if (seen.has(o.metric)) problems.push({ path: `/${i}/metric`, message: `${o.metric} has another objective already` });
    seen.add(o.metric);
    if (o.critical < o.warning) problems.push({ path: `/${i}/critical`, message: 'must be at least warning' });
  });
  return problems;
}

/** Objectives as a client writes them: the window and the hold time may be left out. */
export type QueueObjectiveInput = Pick<QueueObjective, 'metric' | 'warning' | 'critical'> & Partial<Pick<QueueObjective, 'windowHours' | 'forMinutes'>>;

/** Defaults: a 24-hour window, a level held for 15 minutes before it is entered. */
export function objectiveFrom(input: QueueObjectiveInput): QueueObjective {
  return { metric: input.metric, warning: input.warning, critical: input.critical, windowHours: input.windowHours ?? 24, forMinutes: input.forMinutes ?? 15 };
}
