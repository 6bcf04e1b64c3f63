// What a played workload cost and delivered: how fast pull requests merged and how much CI that
// took. Every run started counts as a CI run, including runs cancelled before they finished (CI
// minutes count until the cancellation); a branch that failed to build costs nothing.
import { percentile } from './percentile.js';
import type { WorkloadOutcome } from './workload.js';

export interface QueueEfficiency {
  merged: number;
  /** Pull requests the queue failed (breaking ones and innocent ones). */
  failed: number;
  /** Pull requests the queue failed although their change did not break the build (flakes, conflicts). */
  innocentEjections: number;
  /** Pull requests still in the queue when the play ended. */
  unfinished: number;
  /** Minutes from entering the queue to merging, merged pull requests only (null: none merged). */
  timeInQueueMinutes: { p50: number | null; p90: number | null; p95: number | null; p99: number | null };
  mergesPerHour: number | null;
  ciRunsPerMerged: number | null;
  ciMinutesPerMerged: number | null;
}

const MINUTE = 60_000;

export function queueEfficiency(o: WorkloadOutcome): QueueEfficiency {
  const merged = o.entries.filter((e) => e.state === 'merged');
  const failed = o.entries.filter((e) => e.state === 'failed');
  const inQueue = merged.map((e) => (e.stateChangedAt.getTime() - e.submittedAt.getTime()) / MINUTE);
  const ciMinutes = o.runs.reduce((sum, r) => sum + ((r.concludedAt ?? r.createdAt).getTime() - r.createdAt.getTime()) / MINUTE, 0);
  const starts = o.entries.map((e) => e.submittedAt.getTime());
  const ends = merged.map((e) => e.stateChangedAt.getTime());
  const spanHours = starts.length > 0 && ends.length > 0 ? (Math.max(...ends) - Math.min(...starts)) / (60 * MINUTE) : 0;
  const perMerged = (x: number): number | null => (merged.length > 0 ? x / merged.length : null);
  const at = (p: number): number | null => (inQueue.length > 0 ? percentile(inQueue, p) : null);
  return {
    merged: merged.length,
    failed: failed.length,
    innocentEjections: failed.filter((e) => !o.breaking.has(e.id)).length,
    unfinished: o.entries.filter((e) => !['merged', 'failed', 'cancelled'].includes(e.state)).length,
    timeInQueueMinutes: { p50: at(50), p90: at(90), p95: at(95), p99: at(99) },
    mergesPerHour: spanHours > 0 ? merged.length / spanHours : null,
    ciRunsPerMerged: perMerged(o.runs.length),
    ciMinutesPerMerged: perMerged(ciMinutes),
  };
}
