// What one entry's history contributes to the `_1h` series. Every value is derived from the
// stored transitions alone (never from process memory), so every API process answers the same.
//
// An observation belongs to the window when the transition that completes it happened in
// (start, end]; a duration that began before the window counts in full. Time spent `not_ready`
// never counts: not toward a wait, not toward time in queue.
import type { Conclusion, QueueType } from './series.js';
import type { EntryState, HistoryEntry } from '../model.js';
import { ADMITTED, IN_FLIGHT } from '../planner/entry-states.js';

export interface Window {
  /** Exclusive lower bound (epoch ms). */
  start: number;
  /** Inclusive upper bound (epoch ms). */
  end: number;
}

export interface TypedValue {
  seconds: number;
  queueType: QueueType;
}

export interface EntryExit {
  conclusion: Conclusion;
  queueType: QueueType;
  /** Admitted time from admission to exit; null for an entry that never was admitted. */
  timeInQueueSeconds: number | null;
}

export interface EntryObservations {
  /** One per test start in the window: time spent `pending` since the entry was admitted or last left testing. */
  waits: TypedValue[];
  /** One per testing period that ended in the window. */
  tests: TypedValue[];
  /** The queue type of each restart in the window. */
  restarts: QueueType[];
  /** The entry's exit, when it happened in the window. */
  exit: EntryExit | null;
}

/** Bisection runs are named `<uuid>-bisection` (see TestRun.id). */
export function runQueueType(testRunId: string | undefined): QueueType | null {
  if (testRunId === undefined) return null;
  return testRunId.endsWith('-bisection') ? 'bisection' : 'main';
}

/**
 * A restart sends an entry that held a test run (testing, tests_passed, pending_failure) back to
 * `pending`. Moves inside a bisection (reason `bisection_required`: a failed batch entering its
 * bisection, or a member waiting for the next bisection run) are the bisection's own steps, not
 * restarts; counting them would report every failed batch of N as N restarts. (The engine's
 * `restartCount` leaves them out too.)
 */
export function isRestart(from: EntryState | null, h: HistoryEntry): boolean {
  return h.to === 'pending' && from !== null && IN_FLIGHT.includes(from) && h.reason !== 'bisection_required';
}

const isTerminal = (s: EntryState): s is Conclusion => s === 'merged' || s === 'failed' || s === 'cancelled';

/** One observation of an entry, at the time (epoch ms) of the transition that completes it. */
export type TimedObservation =
  | { at: number; kind: 'wait'; value: TypedValue }
  | { at: number; kind: 'test'; value: TypedValue }
  | { at: number; kind: 'restart'; queueType: QueueType }
  | { at: number; kind: 'exit'; exit: EntryExit };

/** What the entry's transitions fall in the window contribute (the last exit in it, when several). */
export function observeEntry(history: readonly HistoryEntry[], window: Window): EntryObservations {
  const out: EntryObservations = { waits: [], tests: [], restarts: [], exit: null };
  for (const o of timedObservations(history)) {
    if (!inWindow(o.at, window)) continue;
    if (o.kind === 'wait') out.waits.push(o.value);
    else if (o.kind === 'test') out.tests.push(o.value);
    else if (o.kind === 'restart') out.restarts.push(o.queueType);
    else out.exit = o.exit;
  }
  return out;
}

export const inWindow = (at: number, window: Window): boolean => at > window.start && at <= window.end;

/**
 * Every observation of the entry's whole history, in order, in one pass: a reader that buckets a
 * long window (queue-health.ts) places each one by its time instead of replaying the history
 * once per bucket.
 */
export function timedObservations(history: readonly HistoryEntry[]): TimedObservation[] {
  const out: TimedObservation[] = [];
  let state: EntryState | null = null;
  let since = 0;
  // Where the entry is: in the main queue, or in a bisection. A bisection starts when a failed
  // batch's members return to `pending` for it (`bisection_required`) or a member starts a
  // bisection run; it ends when the entry is tested on a main run or sent back to `pending`
  // for any other reason (restarted, bisection abandoned).
  let context: QueueType = 'main';
  let testingType: QueueType = 'main';
  let pendingMs = 0;
  let admittedMs = 0;
  let admitted = false;

  for (const h of history) {
    const at = h.at.getTime();
    const from: EntryState | null = state ?? h.from;
    // Clocks of different processes may disagree by a little: never a negative duration.
    const elapsed = state === null ? 0 : Math.max(0, at - since);
    if (from !== null && ADMITTED.includes(from)) admittedMs += elapsed;
    if (from === 'pending') pendingMs += elapsed;
    if (from === 'testing') out.push({ at, kind: 'test', value: { seconds: elapsed / 1000, queueType: testingType } });
    if (isRestart(from, h)) out.push({ at, kind: 'restart', queueType: context });

    if (h.to === 'testing') {
      testingType = runQueueType(h.testRunId) ?? context;
      out.push({ at, kind: 'wait', value: { seconds: pendingMs / 1000, queueType: testingType } });
      pendingMs = 0;
      context = testingType;
    } else if (h.to === 'pending' && from !== 'pending') {
      context = h.reason === 'bisection_required' ? 'bisection' : 'main';
    } else if (isTerminal(h.to)) {
      out.push({ at, kind: 'exit', exit: { conclusion: h.to, queueType: context, timeInQueueSeconds: admitted ? admittedMs / 1000 : null } });
    }

    if (ADMITTED.includes(h.to)) admitted = true;
    state = h.to;
    since = at;
  }
  return out;
}

/** Whether a merge was the queue's own (a manual merge is not a commit the queue made). */
export function isQueueMerge(reason: string | undefined): boolean {
  return reason === 'merge_graph_merge' || reason === 'merge_graph_direct_merge';
}
