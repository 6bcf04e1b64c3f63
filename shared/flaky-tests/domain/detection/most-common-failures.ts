// `most_common_failures` from per-day failure clusters: counts summed per cluster key, most
// frequent first (ties: most recent, then summary), each shown with its latest wording.
import type { MostCommonFailure } from '../failure-summary.js';

export interface ClusterCount {
  key: string;
  summary: string;
  count: number;
  lastAt: Date;
}

export function rankFailureClusters(days: Iterable<ClusterCount>, limit = 10): MostCommonFailure[] {
  const byKey = new Map<string, ClusterCount>();
  for (const d of days) {
    const c = byKey.get(d.key);
    if (!c) {
      byKey.set(d.key, { ...d });
      continue;
    }
    c.count += d.count;
    if (d.lastAt.getTime() >= c.lastAt.getTime()) {
      c.lastAt = d.lastAt;
      c.summary = d.summary;
    }
  }
  return [...byKey.values()]
    .sort((a, b) => b.count - a.count || b.lastAt.getTime() - a.lastAt.getTime() || (a.summary < b.summary ? -1 : a.summary > b.summary ? 1 : 0))
    .slice(0, limit)
    .map((c) => ({ summary: c.summary, occurrence_count: c.count, last_occurrence: c.lastAt.toISOString() }));
}
