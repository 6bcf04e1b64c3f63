// A flaky test's history for its dashboard page: the status changes detection recorded, and its
// runs per day (from the hourly counters the pipeline writes once per upload). Read-only.
import { notFound } from '../../platform/errors.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { RepoResolver } from './repo-resolver.js';
import type { StatusChange } from '../domain/detection/types.js';
import { caseIdOf } from '../domain/model.js';

const DAY_MS = 24 * 3600 * 1000;

export interface DailyRuns {
  day: Date;
  passed: number;
  failed: number;
  skipped: number;
}

export interface FlakyTestHistory {
  statusHistory: StatusChange[];
  dailyRuns: DailyRuns[];
}

export class TestHistoryService {
  constructor(private readonly deps: { store: FlakyStore; resolver: RepoResolver }) {}

  /** The last `days` UTC days, oldest first, every day present (zeros included). */
  async history(orgId: string, q: { orgUrlSlug: string; repo: RepoRef; testId: string; days: number }, now = new Date()): Promise<FlakyTestHistory> {
    const { repo } = await this.deps.resolver.existing(orgId, q.orgUrlSlug, q.repo);
    const caseId = caseIdOf(repo.id, q.testId);
    const test = await this.deps.store.tests.findById(caseId);
    if (!test) throw notFound('test_not_found', `no test ${q.testId} in this repository`);
    const firstDay = Math.floor(now.getTime() / DAY_MS) * DAY_MS - (q.days - 1) * DAY_MS;
    const buckets = (await this.deps.store.buckets.forCases([caseId], new Date(firstDay), now)).get(caseId) ?? [];
    const dailyRuns: DailyRuns[] = Array.from({ length: q.days }, (_, i) => ({ day: new Date(firstDay + i * DAY_MS), passed: 0, failed: 0, skipped: 0 }));
    for (const b of buckets) {
      const day = dailyRuns[Math.floor((b.hour.getTime() - firstDay) / DAY_MS)];
      if (!day) continue;
      day.passed += b.passed;
      day.failed += b.failed;
      day.skipped += b.skipped;
    }
    return { statusHistory: [...test.statusHistory].reverse(), dailyRuns };
  }
}
