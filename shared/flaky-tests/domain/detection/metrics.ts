// The per-test numbers the API shows (notes §1.6): failure rates over the last 7 days and 24
// hours — fractions in [0, 1] over detection-eligible passed and failed runs on every branch — and
// the number of distinct pull requests with a failing run in the last 7 days.
import type { HourBucket } from './types.js';
import { countWindow, failureRate, inWindow } from './windows.js';

export interface TestMetrics {
  failureRateLast7d: number;
  failureRateLast24h: number;
  pullRequestsImpactedLast7d: number;
}

export function testMetrics(buckets: readonly HourBucket[], now: Date): TestMetrics {
  const prs = new Set<number>();
  for (const b of buckets) if (inWindow(b, now, 7 * 24)) for (const n of b.failedPrs) prs.add(n);
  return {
    failureRateLast7d: failureRate(countWindow(buckets, now, 7 * 24)),
    failureRateLast24h: failureRate(countWindow(buckets, now, 24)),
    pullRequestsImpactedLast7d: prs.size,
  };
}
