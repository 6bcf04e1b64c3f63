// Rolling windows over hour buckets. A bucket covers [hour, hour + 1h) and counts while any part
// of it is inside the window (now − window, now], so a window of W hours is exact to the hour.
import type { HourBucket } from './types.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Start of the clock hour containing `at` (UTC). */
export function hourStart(at: Date | number): Date {
  const ms = typeof at === 'number' ? at : at.getTime();
  return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS);
}

export function inWindow(bucket: Pick<HourBucket, 'hour'>, now: Date, windowHours: number): boolean {
  const start = bucket.hour.getTime();
  return start + HOUR_MS > now.getTime() - windowHours * HOUR_MS && start <= now.getTime();
}

/** When a bucket stops counting for a window of this length. */
export function leavesWindowAt(bucket: Pick<HourBucket, 'hour'>, windowHours: number): number {
  return bucket.hour.getTime() + HOUR_MS + windowHours * HOUR_MS;
}

export interface WindowCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export function countWindow(buckets: readonly HourBucket[], now: Date, windowHours: number): WindowCounts {
  const out = { passed: 0, failed: 0, skipped: 0 };
  for (const b of buckets) {
    if (!inWindow(b, now, windowHours)) continue;
    out.passed += b.passed;
    out.failed += b.failed;
    out.skipped += b.skipped;
  }
  return out;
}

/** failed / (failed + passed) in [0, 1]; 0 when nothing ran. Skipped runs are not runs. */
export function failureRate(counts: WindowCounts): number {
  const runs = counts.failed + counts.passed;
  return runs === 0 ? 0 : counts.failed / runs;
}

export function latest(dates: Iterable<Date | null>): Date | null {
  let best: Date | null = null;
  for (const d of dates) if (d && (!best || d.getTime() > best.getTime())) best = d;
  return best;
}
