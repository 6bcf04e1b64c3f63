// Failure-count monitor (notes §1.3): N failures within a rolling window on the branches in scope
// activate it; it resolves only after `resolutionTimeoutHours` without any new failure.
import type { FailureCountMonitorConfig } from './config.js';
import { describeBranches, inScope } from './branch-scope.js';
import { countWindow, HOUR_MS, inWindow, latest } from './windows.js';
import { failureCountKey, nextState, type MonitorOutcome } from './monitor.js';
import type { HourBucket, MonitorState } from './types.js';
import { duration, plural } from './format.js';

export function evaluateFailureCount(
  prev: MonitorState | undefined,
  buckets: readonly HourBucket[],
  config: FailureCountMonitorConfig,
  now: Date,
): MonitorOutcome {
  const nowMs = now.getTime();
  const scoped = buckets.filter((b) => inScope(config.scope, b.branch, b.branchClass));
  const failures = countWindow(scoped, now, config.windowHours).failed;
  const last = latest(scoped.map((b) => (b.lastFailureAt && b.lastFailureAt.getTime() <= nowMs ? b.lastFailureAt : null)));
  const lastMs = last ? last.getTime() : null;
  const resolutionMs = config.resolutionTimeoutHours * HOUR_MS;
  const key = failureCountKey(config.id);
  const base = { classification: config.classification };
  const fresh = () =>
    `${plural(failures, 'failure')} in the last ${duration(config.windowHours)} ${describeBranches(
      scoped.filter((b) => b.failed > 0 && inWindow(b, now, config.windowHours)).map((b) => b.branch),
    )}`;

  let active = prev?.active ?? false;
  let changedAt = nowMs;
  if (!active && failures >= config.failureThreshold) {
    active = true;
    changedAt = lastMs ?? nowMs;
  }
  if (active && (lastMs === null || nowMs - lastMs >= resolutionMs)) {
    const resolvedAt = lastMs === null ? nowMs : Math.min(nowMs, lastMs + resolutionMs);
    return {
      key,
      state: nextState(prev, false, resolvedAt, `No failures in scope for ${duration(config.resolutionTimeoutHours)}`, base),
      nextChangeAt: null,
    };
  }
  if (active) {
    const reason = failures >= config.failureThreshold ? fresh() : (prev?.reason ?? fresh());
    return { key, state: nextState(prev, true, changedAt, reason, base), nextChangeAt: (lastMs ?? nowMs) + resolutionMs };
  }
  const reason = prev?.reason ?? `Fewer than ${plural(config.failureThreshold, 'failure')} in the last ${duration(config.windowHours)}`;
  return { key, state: nextState(prev, false, nowMs, reason, base), nextChangeAt: null };
}
