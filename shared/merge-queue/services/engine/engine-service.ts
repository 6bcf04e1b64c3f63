// One planning pass over one merge queue: first recover from a crash (finish interrupted builds
// and merges, judge waiting entries in the queue's mode), then rounds of load → plan → apply: load
// a snapshot, ask the pure planner what to do, apply its actions with compare-and-set writes, until
// the planner has nothing more to do. Time-driven follow-ups become delayed wake-ups.
import { plan } from '../../domain/planner/index.js';
import { readinessInMode } from '../../domain/readiness.js';
import { QUEUE_MERGES_FROM } from '../../domain/pr-sync.js';
import type { Queue, TestRun } from '../../domain/model.js';
import type { MergeQueueRepositories } from '../../store/store.js';
import type { GitProvider, ProviderRegistry } from '../provider.js';
import type { Logger } from '../../../platform/logging.js';
import type { RepoRef } from '../../../platform/repo-ref.js';
import { loadSnapshot, type SnapshotSources } from './plan-snapshot.js';
import { PathLanesSource } from '../path-lanes-source.js';
import { ScheduleSource } from '../schedule-source.js';
import { ChangedPathsSource } from '../changed-paths-source.js';
import { NO_TEST_RESULTS, type RunTestResultsSource } from '../run-test-results.js';
import { ActionApplier, toBuilt } from './action-applier.js';
import { ReadinessService } from '../readiness-service.js';
import { targetHealthAfter, targetHealthChanged } from '../../domain/target-health.js';
import { lanesProblemAfter } from '../../domain/lanes-problem.js';

export interface EngineDeps {
  store: MergeQueueRepositories;
  providers: ProviderRegistry;
  logger: Logger;
  scheduleTimeout: (run: TestRun) => Promise<void>;
  scheduleStatusWatch: (run: TestRun, at: Date) => Promise<void>;
  scheduleWake: (queueId: string, at: Date, why: string) => Promise<void>;
  /** Concludes a built run its commit's statuses already decide; returns it concluded, or null. */
  evaluateRun: (run: TestRun, repo: RepoRef) => Promise<TestRun | null>;
  /** Test results linked to the runs (the flaky-tests side); none by default. */
  testResults?: RunTestResultsSource;
  /**
   * A forge's follow-up once a pass changed its queue (GitHub: the draft pull requests of the
   * test branches it built or ended). Its failure is logged and left to the forge's periodic job.
   */
  afterPassApplied?: (queueId: string) => Promise<void>;
  /** The schedule in effect per queue (shared with the schedule watcher, so each reads a target head's file once). */
  schedules?: ScheduleSource;
  /** The files queued pull requests change, for freezes scoped by paths (shared with the forecast). */
  changedPaths?: ChangedPathsSource;
  clock?: () => Date;
  newRunId?: () => string;
}

export interface PassSummary {
  /** Planning rounds (load → plan → apply) of the pass. */
  iterations: number;
  applied: number;
  stale: number;
  wakeAt: Date | null;
}

/** A pass that keeps finding work this many times is cut short and logged (it re-runs later). */
export const MAX_ITERATIONS = 100;

export class EngineService {
  private readonly applier: ActionApplier;
  private readonly readiness: ReadinessService;
  private readonly now: () => Date;
  /** What a snapshot reads besides the store. */
  private readonly sources: SnapshotSources;

  constructor(private readonly deps: EngineDeps) {
    this.sources = {
      testResults: deps.testResults ?? NO_TEST_RESULTS,
      schedules: deps.schedules ?? new ScheduleSource(),
      changedPaths: deps.changedPaths ?? new ChangedPathsSource(deps.logger),
      lanes: new PathLanesSource(),
    };
    const { store, logger, scheduleTimeout, scheduleStatusWatch, evaluateRun, newRunId } = deps;
    this.applier = new ActionApplier({ store, logger, scheduleTimeout, scheduleStatusWatch, evaluateRun, ...(newRunId ? { newRunId } : {}) });
    this.readiness = new ReadinessService({ store });
    this.now = deps.clock ?? (() => new Date());
  }

  async planQueue(queueId: string): Promise<PassSummary> {
    const summary: PassSummary = { iterations: 0, applied: 0, stale: 0, wakeAt: null };
    const found = await this.deps.store.queues.findById(queueId);
    if (!found) return summary;
    const provider = await this.deps.providers.providerFor(found.repo);
    if (!provider) {
      this.deps.logger.warn({ queueId, repo: found.repo }, 'repository not found by any provider; queue not planned');
      return summary;
    }
    await this.recover(found, provider);
    for (; summary.iterations < MAX_ITERATIONS; summary.iterations++) {
      // Rounds apply queue changes (a mode switch completing): each plans on the queue as it is.
      let queue = summary.iterations === 0 ? found : await this.deps.store.queues.findById(queueId);
      if (!queue) return summary;
      const now = this.now();
      const snapshot = await loadSnapshot(this.deps.store, queue, provider, this.sources, now);
      // Results for the target head arrive with an upload, which asks for a pass: once per pass.
      if (summary.iterations === 0 && snapshot.input.targetSha) {
        queue = await this.recordTargetHealth(queue, snapshot.input.targetSha, now);
        queue = await this.recordLanesProblem(queue, snapshot.input.targetSha, snapshot.lanesProblem, now);
        snapshot.input = { ...snapshot.input, queue };
      }
      const result = plan(snapshot.input);
      summary.wakeAt = result.wakeAt;
      if (result.actions.length === 0) break;
      const entries = new Map(snapshot.input.entries.map((e) => [e.id, e]));
      const round = await this.applier.applyAll({ queue, provider, entries, now }, result.actions);
      summary.applied += round.applied;
      if (round.stale) summary.stale++;
      if (!round.stale && result.actions.every((a) => a.kind === 'delete_branch')) break;
    }
    if (summary.iterations >= MAX_ITERATIONS) {
      this.deps.logger.error({ queueId, ...summary }, 'planning pass did not settle; it will run again');
    }
    if (summary.wakeAt) await this.deps.scheduleWake(queueId, summary.wakeAt, 'planner wake-up');
    if (summary.applied > 0 && this.deps.afterPassApplied) {
      try {
        await this.deps.afterPassApplied(queueId);
      } catch (err) {
        // The pass itself is done: running it again would not help.
        this.deps.logger.warn({ err, queueId }, "the forge's follow-up of a planning pass failed; its periodic job will catch up");
      }
    }
    return summary;
  }

  /**
   * Reads CI's results for the target branch's head and records whether the branch is broken
   * (domain/target-health.ts); the queue as it now stands (unchanged when a concurrent write won:
   * the next pass records it).
   */
  private async recordTargetHealth(queue: Queue, headSha: string, now: Date): Promise<Queue> {
    const failures = await this.sources.testResults.failuresAt(queue.orgId, queue.repo, headSha);
    const next = targetHealthAfter(queue.targetBroken, { sha: headSha, failures }, now);
    if (!targetHealthChanged(queue.targetBroken, next)) return queue;
    const recorded = await this.deps.store.queues.recordTargetHealth(queue.id, queue.version, next, headSha, now);
    if (!recorded) return queue;
    this.deps.logger.info(
      { queueId: queue.id, headSha, broken: next ? next.tests.map((t) => t.name) : null },
      next ? 'target branch broken: tests fail on its head' : 'target branch green again',
    );
    return recorded;
  }

  /** Records whether the target head's `merge.lanes` can be used (getQueue's warning); the queue as it now stands. */
  private async recordLanesProblem(queue: Queue, headSha: string, problem: string | null, now: Date): Promise<Queue> {
    const next = lanesProblemAfter(queue.lanesProblem, { sha: headSha, message: problem }, now);
    if (next === queue.lanesProblem) return queue;
    const recorded = await this.deps.store.queues.recordLanesProblem(queue.id, queue.version, next, headSha, now);
    if (!recorded) return queue;
    if (next?.message !== queue.lanesProblem?.message) {
      const log = { queueId: queue.id, headSha, problem: next?.message ?? null };
      if (next) this.deps.logger.warn(log, 'merge.lanes of .trunk/trunk.yaml cannot be used: pull requests without uploaded impacted targets wait');
      else this.deps.logger.info(log, 'merge.lanes problem gone');
    }
    return recorded;
  }

  /**
   * The delayed timeout check of one run. It acts only if the run is still in progress with the
   * same deadline (`deadlineAt`, epoch ms: the one it was scheduled for) and that deadline has passed. The run is
   * cancelled with reason test_run_timeout, which the planner treats as a failure of its group
   * (the same thing it does itself when it sees a run past its deadline).
   */
  async expireRun(testRunId: string, deadlineAt: number): Promise<boolean> {
    const run = await this.deps.store.testRuns.findById(testRunId);
    if (!run || run.status !== 'in_progress' || !run.deadlineAt || run.deadlineAt.getTime() !== deadlineAt) return false;
    if (this.now().getTime() < deadlineAt) return false;
    const concluded = await this.deps.store.testRuns.conclude(
      run.id,
      'cancelled',
      'test_run_timeout',
      this.now(),
      undefined,
      `no result by its deadline, ${run.deadlineAt.toISOString()}`,
    );
    if (!concluded) return false;
    this.deps.logger.info({ testRunId, deadlineAt: run.deadlineAt }, 'test run timed out');
    return true;
  }

  /**
   * Queues whose stored state may hold due work: any active entry, run in progress, or test
   * branch still to delete. Planning one with nothing due is a cheap no-op, so the reconciler
   * re-plans them all rather than second-guessing the planner.
   */
  async queuesWithWork(): Promise<string[]> {
    const ids = new Set<string>();
    for (const e of await this.deps.store.entries.listActiveAll()) ids.add(e.queueId);
    for (const id of await this.deps.store.testRuns.queueIdsWithOpenRuns()) ids.add(id);
    return [...ids];
  }

  /**
   * What a crash (or a change made outside a pass) can leave behind, put right once at the
   * start of every pass, before anything is planned.
   */
  private async recover(queue: Queue, provider: GitProvider): Promise<void> {
    await this.resumeBuilds(queue, provider);
    await this.completeInterruptedMerges(queue, provider);
    // The API stores submissions with their mergeability undecided: decided here, before planning.
    await this.readiness.decideSubmitted(queue, provider);
    await this.applyModeToReadiness(queue);
  }

  /**
   * After a mode change, waiting entries are judged in the new mode before anything is admitted
   * (parallel mode requires impacted targets), without waiting for the next provider poll.
   */
  private async applyModeToReadiness(queue: Queue): Promise<void> {
    const mode = queue.pendingMode ?? queue.mode;
    // Only entries judged in the other mode: after the first pass that follows a change, none.
    for (const e of await this.deps.store.entries.listWaitingJudgedWith(queue.id, mode !== 'parallel')) {
      const readiness = readinessInMode(e.readiness, mode);
      if (readiness) await this.deps.store.entries.patch(e.id, e.version, { readiness });
    }
  }

  /**
   * A crash between the provider's merge (target and merged marker move in one atomic ref update)
   * and the entry's transition leaves an entry the forge already merged. Left alone, its run
   * would look stale and the pull request would be tested and merged a second time; it is
   * completed as merged instead, before anything is planned. Only an entry the queue merges from
   * (tests_passed, pending_failure) can have had its merge interrupted, so only those few are
   * read from the forge: reading every queued pull request at every pass would cost a GitHub
   * request per entry per pass. One merged by hand while pending or testing is the sync's to
   * record (manual_merge), from the poll or the pull request's webhook.
   */
  private async completeInterruptedMerges(queue: Queue, provider: GitProvider): Promise<void> {
    const merging = await this.deps.store.entries.listInStates(queue.id, QUEUE_MERGES_FROM);
    if (merging.length === 0) return;
    const pulls = await provider.getPullRequests(
      queue.repo,
      merging.map((e) => e.prNumber),
    );
    for (const e of merging) {
      const pr = pulls.get(e.prNumber);
      if (!pr?.merged || pr.headSha !== e.prSha) continue;
      const done = await this.deps.store.entries.transition(
        e.id,
        { from: [e.state], version: e.version },
        {
          to: 'merged',
          reason: 'merge_graph_merge',
          detail: 'the merge completed before the service restarted',
          set: { verifiedByTestRun: e.currentRunId, currentRunId: null },
        },
        this.now(),
      );
      if (done) this.deps.logger.warn({ entryId: e.id, prNumber: e.prNumber }, 'completed a merge interrupted by a restart');
    }
  }

  /** Runs recorded before a crash but never built: build them now (the build is idempotent). */
  private async resumeBuilds(queue: Queue, provider: GitProvider): Promise<void> {
    for (const run of await this.deps.store.testRuns.listUnbuilt(queue.id)) {
      this.deps.logger.info({ testRunId: run.id }, 'resuming an interrupted test branch build');
      const ids = [...run.baseEntryIds, ...run.entryIds];
      const entries = new Map((await this.deps.store.entries.findByIds(ids)).map((e) => [e.id, e]));
      await this.applier.build(
        queue,
        provider,
        run,
        ids.map((id) => toBuilt(id, entries.get(id))),
      );
    }
  }
}
