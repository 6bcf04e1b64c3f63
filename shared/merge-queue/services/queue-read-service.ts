// Reads the dashboard needs that the compatible API has no endpoint for: who the token is, the
// organisation's queues with their counts, a queue's test runs (the graph of groups and their
// predicted bases) and its health over a chosen window. Read-only: every write goes through the
// compatible API's own endpoints.
import type { RepoRef } from '../../platform/repo-ref.js';
import { notFound } from '../../platform/errors.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import type { QueueService } from './queue-service.js';
import type { EntryState, Queue, TestRun } from '../domain/model.js';
import { ENTRY_STATES } from '../domain/model.js';
import { computeQueueHealth, type QueueHealth } from '../domain/metrics/queue-health.js';

const HOUR_SECONDS = 3600;
/** How many concluded runs the queue page shows besides those in progress. */
const RECENT_RUNS = 20;
/** Runs a health window counts at most (a 90-day window of a busy queue stays bounded). */
const MAX_HEALTH_RUNS = 100_000;

export interface QueueSummary {
  queue: Queue;
  counts: Record<EntryState, number>;
  /** Pull requests merged in each of the last 24 hours, oldest first. */
  mergedLast24h: number[];
}

export interface TestRunView {
  run: TestRun;
  testedPrs: number[];
  basePrs: number[];
}

export class QueueReadService {
  constructor(
    private readonly deps: {
      store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns'>;
      orgs: Pick<OrgRepository, 'findById'>;
      queues: QueueService;
    },
  ) {}

  async organizationSlug(orgId: string): Promise<string> {
    const org = await this.deps.orgs.findById(orgId);
    if (!org) throw notFound('organization_not_found', 'the organisation of this API token no longer exists');
    return org.slug;
  }

  async listQueues(orgId: string, now = new Date()): Promise<QueueSummary[]> {
    const { store } = this.deps;
    const [queues, active, recent] = await Promise.all([
      store.queues.listByOrg(orgId),
      store.entries.listActiveStates({ orgId }),
      store.entries.listHistoriesChangedSince({ orgId }, new Date(now.getTime() - 24 * HOUR_SECONDS * 1000)),
    ]);
    return queues.map((queue) => {
      const counts = Object.fromEntries(ENTRY_STATES.map((s) => [s, 0])) as Record<EntryState, number>;
      for (const e of active) if (e.queueId === queue.id) counts[e.state] += 1;
      const histories = recent.filter((e) => e.queueId === queue.id);
      const health = computeQueueHealth({ histories, testRunsCreatedAt: [], end: now, windowSeconds: 24 * HOUR_SECONDS, bucketCount: 24 });
      return { queue, counts, mergedLast24h: health.buckets.map((b) => b.merged) };
    });
  }

  /** Runs in progress, then the most recent concluded ones, newest first within each. */
  async listTestRuns(orgId: string, repo: RepoRef, branch: string): Promise<TestRunView[]> {
    const { store } = this.deps;
    const queue = await this.deps.queues.get(orgId, repo, branch);
    const runs = await store.testRuns.listCurrentAndRecent(queue.id, RECENT_RUNS);
    const ids = [...new Set(runs.flatMap((r) => [...r.entryIds, ...r.baseEntryIds]))];
    const prOf = new Map((await store.entries.findByIds(ids)).map((e) => [e.id, e.prNumber]));
    const prs = (entryIds: string[]) => entryIds.flatMap((id) => (prOf.has(id) ? [prOf.get(id)!] : []));
    return runs.map((run) => ({ run, testedPrs: prs(run.entryIds), basePrs: prs(run.baseEntryIds) }));
  }

  async queueHealth(orgId: string, repo: RepoRef, branch: string, windowHours: number, bucketCount: number, now = new Date()): Promise<QueueHealth> {
    const { store } = this.deps;
    const queue = await this.deps.queues.get(orgId, repo, branch);
    const since = new Date(now.getTime() - windowHours * HOUR_SECONDS * 1000);
    const [recent, runStarts] = await Promise.all([
      store.entries.listHistoriesChangedSince({ orgId, queueIds: [queue.id] }, since),
      store.testRuns.listCreationTimesSince(queue.id, since, MAX_HEALTH_RUNS),
    ]);
    return computeQueueHealth({
      histories: recent,
      testRunsCreatedAt: runStarts,
      end: now,
      windowSeconds: windowHours * HOUR_SECONDS,
      bucketCount,
    });
  }
}
