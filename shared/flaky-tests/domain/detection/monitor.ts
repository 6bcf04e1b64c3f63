// What every monitor evaluation returns.
import type { MonitorState } from './types.js';

export interface MonitorOutcome {
  /** `pass_on_retry`, `failure_rate:<id>` or `failure_count:<id>`. */
  key: string;
  state: MonitorState;
  /** Epoch ms at which time alone would change this monitor; null when only new runs can. */
  nextChangeAt: number | null;
}

export const PASS_ON_RETRY_KEY = 'pass_on_retry';
export const failureRateKey = (id: string) => `failure_rate:${id}`;
export const failureCountKey = (id: string) => `failure_count:${id}`;

/** A state that moves only when `active` changes; `since` is clamped so it never runs backwards. */
export function nextState(
  prev: MonitorState | undefined,
  active: boolean,
  changedAt: number,
  reason: string,
  base: Omit<MonitorState, 'active' | 'since' | 'reason'>,
): MonitorState {
  if (prev && prev.active === active) return { ...base, active, since: prev.since, reason };
  const floor = prev ? prev.since.getTime() : -Infinity;
  return { ...base, active, since: new Date(Math.max(changedAt, floor)), reason };
}
