// POST /v1/getQueueCostReport: loads the runs started in the window, the pull requests merged in
// it and the re-test decisions on the tested entries' timelines, and hands them to the pure
// cost rules (shared/merge-queue/domain/metrics/cost-report.ts).
import type { RepoRef } from '../../platform/repo-ref.js';
import { invalid } from '../../platform/errors.js';
import { computeCostReport, RETEST_CAUSES, type CostReport } from '../domain/metrics/cost-report.js';
import type { Queue, Reason, TestRun } from '../domain/model.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { QueueService } from './queue-service.js';

export const DEFAULT_COST_WINDOW_DAYS = 7;
export const MAX_COST_WINDOW_DAYS = 90;
/** Runs one report reads at most (a 90-day window of a very busy queue stays bounded). */
const MAX_RUNS = 200_000;
const DAY_MS = 86_400_000;

export interface CostReportDeps {
  store: Pick<MergeQueueRepositories, 'entries' | 'testRuns'>;
  queues: Pick<QueueService, 'get'>;
}

export class CostReportService {
  constructor(private readonly deps: CostReportDeps) {}

  async report(orgId: string, repo: RepoRef, branch: string, window: { since?: Date; until?: Date }, now = new Date()): Promise<CostReport> {
    const until = window.until ?? now;
    const since = window.since ?? new Date(until.getTime() - DEFAULT_COST_WINDOW_DAYS * DAY_MS);
    if (since >= until) throw invalid('invalid_window', 'since must be before until', [{ path: '/since', message: 'must be before until' }]);
    if (until.getTime() - since.getTime() > MAX_COST_WINDOW_DAYS * DAY_MS) {
      throw invalid('invalid_window', `the window may span at most ${MAX_COST_WINDOW_DAYS} days`, [
        { path: '/since', message: `at most ${MAX_COST_WINDOW_DAYS} days before until` },
      ]);
    }
    const queue = await this.deps.queues.get(orgId, repo, branch);
    return this.forQueue(queue, since, until);
  }

  /** The report of one queue over [since, until] (also used for the metrics' one-hour window). */
  async forQueue(queue: Queue, since: Date, until: Date): Promise<CostReport> {
    const { store } = this.deps;
    const [created, mergedPullRequests] = await Promise.all([
      store.testRuns.readCreatedSince(queue.id, since, MAX_RUNS),
      store.entries.countMergedBetween(queue.id, since, until),
    ]);
    const runs = created.filter((r) => r.createdAt <= until);
    return computeCostReport({
      since,
      until,
      runs,
      mergedPullRequests,
      retests: await this.retests(runs),
    });
  }

  /** Failed runs whose group was re-tested instead of failing (known-flaky failures, or not its fault), with the decision's reason and detail. */
  private async retests(runs: readonly TestRun[]): Promise<Map<string, { reason: Reason; detail: string }>> {
    const failed = new Set(runs.filter((r) => r.status === 'failed').map((r) => r.id));
    const found = new Map<string, { reason: Reason; detail: string }>();
    if (failed.size === 0) return found;
    const entryIds = [...new Set(runs.filter((r) => failed.has(r.id)).flatMap((r) => r.entryIds))];
    for (const e of await this.deps.store.entries.findByIds(entryIds)) {
      for (const h of e.history) {
        if (RETEST_CAUSES[h.reason] && h.testRunId && failed.has(h.testRunId) && !found.has(h.testRunId)) {
          found.set(h.testRunId, { reason: h.reason, detail: h.detail ?? '' });
        }
      }
    }
    return found;
  }
}
