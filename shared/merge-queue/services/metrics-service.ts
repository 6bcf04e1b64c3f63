// GET /v1/getMergeQueueMetrics: loads what the pure metrics rules need with three indexed,
// projected queries — the queues' labels, the state of each active entry, and the histories of
// entries that changed within the window — and hands them to the domain. Entries that ended
// before the window are never read, however long the history kept in the store.
import { repositoryNotFound } from '../../platform/errors.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { computeMergeQueueMetrics, WINDOW_MS, type QueueTypeSeries } from '../domain/metrics/index.js';
import type { MergeQueueRepositories } from '../store/store.js';

export interface MergeQueueMetricsDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns'>;
}

export class MergeQueueMetricsService {
  constructor(private readonly deps: MergeQueueMetricsDeps) {}

  /**
   * Series for every queue of the organisation, or of one repository. A repository without a
   * queue of this organisation is a 404, whether it is unknown or another organisation's.
   */
  async collect(orgId: string, repo: RepoRef | null, now = new Date()): Promise<QueueTypeSeries[]> {
    const { store } = this.deps;
    const queues = await store.queues.listRefs(orgId, repo);
    if (repo && queues.length === 0) {
      throw repositoryNotFound(repo, `no merge queue for repository ${repo.host}/${repo.owner}/${repo.name}`);
    }
    if (queues.length === 0) return [];
    // A repository's few queues by id; a whole organisation by orgId alone (a list of every
    // queue id would be tested against each entry).
    const scope = repo ? { orgId, queueIds: queues.map((q) => q.id) } : { orgId };
    const since = new Date(now.getTime() - WINDOW_MS);
    const [activeEntries, recentEntries, openRuns] = await Promise.all([
      store.entries.listActiveStates(scope),
      store.entries.listHistoriesChangedSince(scope, since),
      Promise.all(queues.map((q) => store.testRuns.listOpen(q.id))),
    ]);
    const stalledRuns = openRuns
      .flat()
      .flatMap((r) => (r.status === 'in_progress' && r.statusWatch ? [{ queueId: r.queueId, kind: r.kind, missing: r.statusWatch.missing }] : []));
    return computeMergeQueueMetrics({ queues, activeEntries, recentEntries, stalledRuns, now });
  }
}
