// Failure-rate monitor (notes §1.3): over a rolling window on the branches in scope, activate when
// failed / (passed + failed) reaches the activation threshold, resolve when it drops below the
// resolution threshold (lower = hysteresis). Below the minimum sample the monitor holds its state;
// an active monitor also resolves after `staleTimeoutHours` without a passed or failed run.
import type { FailureRateMonitorConfig } from './config.js';
import { describeBranches, inScope } from './branch-scope.js';
import { countWindow, failureRate, HOUR_MS, inWindow, latest, leavesWindowAt } from './windows.js';
import { failureRateKey, nextState, type MonitorOutcome } from './monitor.js';
import type { HourBucket, MonitorState } from './types.js';
import { duration, percent, thresholdPercent } from './format.js';

type Verdict = { active: true; kind: 'above' | 'between' | 'held' } | { active: false; kind: 'below' | 'resolved' | 'stale' | 'held' };

interface Snapshot {
  failed: number;
  runs: number;
  rate: number;
  lastRunAt: number | null;
}

function snapshot(scoped: readonly HourBucket[], config: FailureRateMonitorConfig, t: number): Snapshot {
  const counts = countWindow(scoped, new Date(t), config.windowHours);
  const runs = counts.failed + counts.passed;
  const last = latest(scoped.map((b) => (b.lastRunAt && b.lastRunAt.getTime() <= t ? b.lastRunAt : null)));
  return { failed: counts.failed, runs, rate: failureRate(counts), lastRunAt: last ? last.getTime() : null };
}

function decide(wasActive: boolean, s: Snapshot, config: FailureRateMonitorConfig, t: number): Verdict {
  if (wasActive && config.staleTimeoutHours !== null) {
    if (s.lastRunAt === null || t - s.lastRunAt >= config.staleTimeoutHours * HOUR_MS) return { active: false, kind: 'stale' };
  }
  if (s.runs < config.minSampleSize) return wasActive ? { active: true, kind: 'held' } : { active: false, kind: 'held' };
  if (!wasActive) return s.rate >= config.activationThreshold ? { active: true, kind: 'above' } : { active: false, kind: 'below' };
  if (s.rate < config.resolutionThreshold) return { active: false, kind: 'resolved' };
  return { active: true, kind: s.rate >= config.activationThreshold ? 'above' : 'between' };
}

export function evaluateFailureRate(
  prev: MonitorState | undefined,
  buckets: readonly HourBucket[],
  config: FailureRateMonitorConfig,
  now: Date,
): MonitorOutcome {
  const nowMs = now.getTime();
  const scoped = buckets.filter((b) => inScope(config.scope, b.branch, b.branchClass));
  const wasActive = prev?.active ?? false;
  const s = snapshot(scoped, config, nowMs);
  const verdict = decide(wasActive, s, config, nowMs);
  const window = duration(config.windowHours);
  const where = describeBranches(scoped.filter((b) => inWindow(b, now, config.windowHours) && b.passed + b.failed > 0).map((b) => b.branch));
  const evidence = `over the last ${window} ${where} (${s.failed} of ${s.runs} runs failed)`;

  let reason: string;
  let changedAt = nowMs;
  switch (verdict.kind) {
    case 'above':
      reason = `Failure rate ${percent(s.rate)} >= ${thresholdPercent(config.activationThreshold)} ${evidence}`;
      break;
    case 'between':
      reason = `Failure rate ${percent(s.rate)} >= resolution threshold ${thresholdPercent(config.resolutionThreshold)} ${evidence}`;
      break;
    case 'resolved':
      reason = `Failure rate ${percent(s.rate)} < ${thresholdPercent(config.resolutionThreshold)} ${evidence}`;
      break;
    case 'below':
      reason = `Failure rate ${percent(s.rate)} < ${thresholdPercent(config.activationThreshold)} ${evidence}`;
      break;
    case 'stale':
      reason = `No passed or failed runs in scope for ${duration(config.staleTimeoutHours ?? 0)}`;
      if (s.lastRunAt !== null) changedAt = Math.min(nowMs, s.lastRunAt + (config.staleTimeoutHours ?? 0) * HOUR_MS);
      break;
    case 'held':
      reason = prev?.reason ?? `Fewer than ${config.minSampleSize} runs ${where} in the last ${window}`;
      break;
  }
  const state = nextState(prev, verdict.active, changedAt, reason, { classification: config.classification });
  return { key: failureRateKey(config.id), state, nextChangeAt: nextChange(verdict.active, scoped, config, s, nowMs) };
}

/**
 * The first future moment at which buckets leaving the window (or the stale timeout) flip the
 * monitor, assuming no new runs: found by replaying the exits in order.
 */
function nextChange(active: boolean, scoped: readonly HourBucket[], config: FailureRateMonitorConfig, now: Snapshot, nowMs: number): number | null {
  const times = new Set<number>();
  for (const b of scoped) {
    const t = leavesWindowAt(b, config.windowHours);
    if (t > nowMs) times.add(t);
  }
  if (active && config.staleTimeoutHours !== null && now.lastRunAt !== null) {
    const t = now.lastRunAt + config.staleTimeoutHours * HOUR_MS;
    if (t > nowMs) times.add(t);
  }
  for (const t of [...times].sort((a, b) => a - b)) {
    if (decide(active, snapshot(scoped, config, t), config, t).active !== active) return t;
  }
  return null;
}
