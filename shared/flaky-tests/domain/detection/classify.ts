// A test's status from its monitors (notes §1.3): the most severe active classifying monitor
// decides — broken over flaky over healthy — and a test is healthy again only when every monitor
// has resolved. Evaluation is a pure function of the previous health, the evidence and the time,
// so it can run at ingest (for the tests an upload touched) and again whenever `reevaluateAt`
// passes, with the same result as if it had run at exactly that moment.
import type { DetectionConfig } from './config.js';
import { evaluatePassOnRetry } from './pass-on-retry.js';
import { evaluateFailureRate } from './failure-rate.js';
import { evaluateFailureCount } from './failure-count.js';
import type { MonitorOutcome } from './monitor.js';
import { SEVERITY, type HealthStatus, type StatusChange, type TestEvidence, type TestHealth } from './types.js';

export const INITIAL_REASON = 'No flaky or broken behaviour detected';

export function initialHealth(firstSeenAt: Date): TestHealth {
  return { status: { value: 'healthy', reason: INITIAL_REASON, timestamp: firstSeenAt }, monitors: {}, reevaluateAt: null };
}

export interface EvaluateInput {
  config: DetectionConfig;
  previous: TestHealth;
  evidence: TestEvidence;
  now: Date;
}

export interface Evaluation {
  health: TestHealth;
  /** Set when the status value changed. */
  change: StatusChange | null;
}

export function evaluateHealth({ config, previous, evidence, now }: EvaluateInput): Evaluation {
  const prev = previous.monitors;
  const outcomes: MonitorOutcome[] = [];
  if (config.passOnRetry.enabled) outcomes.push(evaluatePassOnRetry(prev.pass_on_retry, evidence.detections, config.passOnRetry, now));
  for (const m of config.failureRate) {
    if (m.enabled) outcomes.push(evaluateFailureRate(prev[`failure_rate:${m.id}`], evidence.buckets, m, now));
  }
  for (const m of config.failureCount) {
    if (m.enabled) outcomes.push(evaluateFailureCount(prev[`failure_count:${m.id}`], evidence.buckets, m, now));
  }

  const monitors: TestHealth['monitors'] = {};
  let reevaluateAt: number | null = null;
  let winner: MonitorOutcome | null = null;
  for (const o of outcomes) {
    // Only active monitors are kept: an inactive one carries nothing the next evaluation needs.
    if (o.state.active) monitors[o.key] = o.state;
    if (o.nextChangeAt !== null) reevaluateAt = reevaluateAt === null ? o.nextChangeAt : Math.min(reevaluateAt, o.nextChangeAt);
    // Ties keep the first in evaluation order: pass-on-retry explains itself best.
    if (o.state.active && (!winner || SEVERITY[o.state.classification] > SEVERITY[winner.state.classification])) winner = o;
  }

  const before = previous.status;
  const value: HealthStatus = winner ? winner.state.classification : 'healthy';
  let reason: string;
  let changedAt: number;
  if (winner) {
    reason = winner.state.reason;
    changedAt = winner.state.since.getTime();
  } else if (before.value === 'healthy') {
    reason = before.reason;
    changedAt = now.getTime();
  } else {
    // Recovered: name the monitor that resolved last, since that is what let the test go.
    let resolved: MonitorOutcome | null = null;
    for (const o of outcomes) {
      if (prev[o.key]?.active && (!resolved || o.state.since.getTime() > resolved.state.since.getTime())) resolved = o;
    }
    reason = resolved ? `Recovered: ${resolved.state.reason}` : 'Recovered: the monitors that flagged this test are disabled';
    changedAt = resolved ? resolved.state.since.getTime() : now.getTime();
  }

  const changed = value !== before.value;
  const timestamp = changed ? new Date(Math.min(now.getTime(), Math.max(changedAt, before.timestamp.getTime()))) : before.timestamp;
  const health: TestHealth = {
    status: { value, reason, timestamp },
    monitors,
    reevaluateAt: reevaluateAt === null ? null : new Date(reevaluateAt),
  };
  const change: StatusChange | null = changed ? { at: timestamp, from: before.value, to: value, reason, monitor: winner?.key ?? null } : null;
  return { health, change };
}

const sameTime = (a: Date | null, b: Date | null) => (a === null || b === null ? a === b : a.getTime() === b.getTime());

/** True when storing `next` over `prev` would change nothing (so the write can be skipped). */
export function sameHealth(prev: TestHealth, next: TestHealth): boolean {
  if (prev.status.value !== next.status.value || prev.status.reason !== next.status.reason) return false;
  if (!sameTime(prev.status.timestamp, next.status.timestamp) || !sameTime(prev.reevaluateAt, next.reevaluateAt)) return false;
  const keys = Object.keys(next.monitors);
  if (keys.length !== Object.keys(prev.monitors).length) return false;
  return keys.every((k) => {
    const a = prev.monitors[k];
    const b = next.monitors[k];
    return (
      a !== undefined &&
      b !== undefined &&
      a.active === b.active &&
      a.classification === b.classification &&
      a.reason === b.reason &&
      sameTime(a.since, b.since)
    );
  });
}
