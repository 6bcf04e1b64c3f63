// The stall watchdog (shared/merge-queue/domain/status-watch.ts has the rules): a delayed job per
// built run looks at its statuses once statusWaitMinutes have passed; statuses arriving later
// shrink what it found, and the queue's warnings are read from what is stored (with the failures
// the planner holds instead of ejecting, domain/held-failures.ts, and a broken target branch,
// domain/target-health.ts).
import type { Queue, TestRun } from '../domain/model.js';
import { afterStatusReported, statusWarnings, unreportedContexts, type QueueWarning } from '../domain/status-watch.js';
import { repoKey } from '../../platform/repo-ref.js';
import { heldFailureWarnings } from '../domain/held-failures.js';
import { targetBrokenWarning } from '../domain/target-health.js';
import { lanesProblemWarning } from '../domain/lanes-problem.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { recordTimelineNote } from './timeline-notes.js';
import type { Logger } from '../../platform/logging.js';

/** Recent runs whose reports tell whether CI ever reported a context on this queue's test branches. */
const RECENT_RUNS_LOOKED_AT = 50;

export interface StatusWatchDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns' | 'commitStatuses'>;
  logger: Logger;
}

export class StatusWatchService {
  constructor(private readonly deps: StatusWatchDeps) {}

  /**
   * The delayed check of one run: if it is still in progress and some required context has no
   * report at all on its head, record the finding on the run and a timeline note on its entries.
   * Returns the contexts found missing (empty when there is nothing to say).
   */
  async check(testRunId: string, now = new Date()): Promise<string[]> {
    const { store, logger } = this.deps;
    const run = await store.testRuns.findById(testRunId);
    if (!run || run.status !== 'in_progress' || !run.sha || run.statusWatch) return [];
    const queue = await store.queues.findById(run.queueId);
    if (!queue) return [];
    const key = repoKey(queue.repo);
    const reported = (await store.commitStatuses.forCommit(run.orgId, key, run.sha)).map((s) => s.context);
    const missing = unreportedContexts(run.requiredStatuses, reported);
    if (missing.length === 0) return [];
    const neverReported = await this.neverReported(queue, run, missing);
    const recorded = await store.testRuns.recordStatusWatch(run.id, { firedAt: now, missing, neverReported });
    if (!recorded) return [];
    const detail =
      `no report of required status ${missing.map((c) => `"${c}"`).join(', ')} on ${run.branch} after ${queue.statusWaitMinutes} min` +
      (neverReported.length > 0 ? '; never reported on any recent test branch: does CI run on trunk-merge/**?' : '');
    for (const entryId of run.entryIds) {
      await recordTimelineNote(this.deps, entryId, { reason: 'required_status_not_reported', detail, testRunId: run.id }, now);
    }
    logger.warn({ testRunId: run.id, queueId: queue.id, missing, neverReported }, 'required statuses not reported on a test branch');
    return missing;
  }

  /** A status arrived on the head of in-progress runs: what their watch found shrinks. */
  async statusReported(runs: readonly TestRun[], context: string): Promise<void> {
    for (const run of runs) {
      if (!run.statusWatch) continue;
      const next = afterStatusReported(run.statusWatch, context);
      if (next === run.statusWatch) continue;
      await this.deps.store.testRuns.recordStatusWatch(run.id, next);
    }
  }

  /** The queue's warnings: a broken target branch, runs waiting for statuses CI never reported, and failures held instead of ejected. */
  async warnings(queue: Queue): Promise<QueueWarning[]> {
    const [open, active] = await Promise.all([this.deps.store.testRuns.listOpen(queue.id), this.deps.store.entries.listActive(queue.id)]);
    const broken = queue.targetBroken ? [targetBrokenWarning(queue.targetBroken, queue.branch)] : [];
    const lanes = queue.lanesProblem ? [lanesProblemWarning(queue.lanesProblem)] : [];
    return [...broken, ...lanes, ...statusWarnings(open), ...heldFailureWarnings(active)];
  }

  private async neverReported(queue: Queue, run: TestRun, missing: readonly string[]): Promise<string[]> {
    const { store } = this.deps;
    const shas = (await store.testRuns.listCurrentAndRecent(queue.id, RECENT_RUNS_LOOKED_AT)).flatMap((r) => (r.id !== run.id && r.sha ? [r.sha] : []));
    const byCommit = await store.commitStatuses.forCommits(run.orgId, repoKey(queue.repo), shas);
    const ever = new Set([...byCommit.values()].flat().map((s) => s.context));
    return missing.filter((c) => !ever.has(c));
  }
}
