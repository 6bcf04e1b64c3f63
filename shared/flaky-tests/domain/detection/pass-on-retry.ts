// Pass-on-retry (notes §1.3): a failure and a pass of the same test on the same commit — within
// one upload or across uploads — is flakiness by definition, because the code did not change.
// Several retries on one commit are one detection. Resolves after `recoveryDays` without a new
// detection. Only ever classifies as flaky.
import type { PassOnRetryConfig } from './config.js';
import { describeLocation, inScope, shortSha } from './branch-scope.js';
import { DAY_MS } from './windows.js';
import { nextState, PASS_ON_RETRY_KEY, type MonitorOutcome } from './monitor.js';
import type { MonitorState, RetryDetection } from './types.js';
import { plural } from './format.js';

export function evaluatePassOnRetry(
  prev: MonitorState | undefined,
  detections: readonly RetryDetection[],
  config: PassOnRetryConfig,
  now: Date,
): MonitorOutcome {
  const nowMs = now.getTime();
  const recoveryMs = config.recoveryDays * DAY_MS;
  const at = (d: RetryDetection) => d.detectedAt.getTime();
  // Evidence from after `now` does not exist yet (evaluations can replay an earlier moment).
  const known = detections.filter((d) => at(d) <= nowMs && inScope(config.scope, d.branch, d.branchClass));
  const recent = known.filter((d) => nowMs - at(d) < recoveryMs);
  let newest: RetryDetection | null = null;
  for (const d of recent) if (!newest || at(d) > at(newest)) newest = d;
  const base = { classification: 'flaky' as const };

  if (newest) {
    const commits = new Set(recent.map((d) => d.sha)).size;
    let reason = `Failed and passed on the same commit ${shortSha(newest.sha)} ${describeLocation(newest.branch, newest.branchClass, newest.prNumber)}`;
    if (commits > 1) reason += ` (${plural(commits, 'commit')} in the last ${plural(config.recoveryDays, 'day')})`;
    return {
      key: PASS_ON_RETRY_KEY,
      state: nextState(prev, true, at(newest), reason, base),
      nextChangeAt: at(newest) + recoveryMs,
    };
  }

  if (prev?.active) {
    // It resolved exactly `recoveryDays` after the newest evidence it had (at most now).
    const lastEvidence = known.reduce((m, d) => Math.max(m, at(d)), -Infinity);
    const resolvedAt = Number.isFinite(lastEvidence) ? Math.min(lastEvidence + recoveryMs, nowMs) : nowMs;
    return {
      key: PASS_ON_RETRY_KEY,
      state: nextState(prev, false, resolvedAt, `No pass-on-retry evidence for ${plural(config.recoveryDays, 'day')}`, base),
      nextChangeAt: null,
    };
  }
  return {
    key: PASS_ON_RETRY_KEY,
    state: nextState(prev, false, nowMs, prev?.reason ?? 'No pass-on-retry evidence', base),
    nextChangeAt: null,
  };
}

/** Earliest failed and passed run of one test on one commit (epoch ms), merged over uploads. */
export interface CommitOutcomes {
  firstFailAt: number | null;
  firstPassAt: number | null;
}

export function mergeCommitOutcomes(a: CommitOutcomes, b: CommitOutcomes): CommitOutcomes {
  const min = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.min(x, y));
  return { firstFailAt: min(a.firstFailAt, b.firstFailAt), firstPassAt: min(a.firstPassAt, b.firstPassAt) };
}

/** When the commit became pass-on-retry evidence: the moment the second outcome arrived; null if not (yet). */
export function retryDetectedAt(outcomes: CommitOutcomes): number | null {
  if (outcomes.firstFailAt === null || outcomes.firstPassAt === null) return null;
  return Math.max(outcomes.firstFailAt, outcomes.firstPassAt);
}
