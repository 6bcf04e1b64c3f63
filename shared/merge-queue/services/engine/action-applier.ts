// Applies the planner's actions, each with the compare-and-set its preconditions describe. An
// action whose precondition no longer holds is "stale": the caller stops and plans again from
// fresh state, so a lost race is never overwritten. The pass hands the applier what it loaded
// (the queue, the provider, the entries of the snapshot), so applying reads nothing again —
// except the entries of a merge, checked once more right before the forge's irreversible merge.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryInteraction, Queue, TestRun } from '../../domain/model.js';
import type {
  Action,
  CancelRunAction,
  CompleteModeSwitchAction,
  DeleteBranchAction,
  MergeAction,
  NoteEntryAction,
  StartRunAction,
  TransitionEntryAction,
} from '../../domain/planner/index.js';
import { testBranchName } from '../../domain/test-branch.js';
import { mayReuse, recipeOf, reuseDetail } from '../../domain/tested-tree-reuse.js';
import type { GitProvider } from '../provider.js';
import { statusWatchDueAt } from '../../domain/status-watch.js';
import type { MergeQueueRepositories } from '../../store/store.js';
import type { TransitionChange } from '../../store/entry-repository.js';
import type { Logger } from '../../../platform/logging.js';
import { recordTimelineNote } from '../timeline-notes.js';
import type { RepoRef } from '../../../platform/repo-ref.js';

export type ApplyOutcome = 'applied' | 'stale';

export interface ApplierDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns'>;
  logger: Logger;
  /** Schedules the delayed timeout check of a run. */
  scheduleTimeout: (run: TestRun) => Promise<void>;
  /** Schedules the stall watchdog's look at a built run still waiting for CI. */
  scheduleStatusWatch: (run: TestRun, at: Date) => Promise<void>;
  /**
   * Concludes a freshly built run at once if CI already reported on its sha; returns the
   * concluded run (null when its statuses do not decide it yet).
   */
  evaluateRun: (run: TestRun, repo: RepoRef) => Promise<TestRun | null>;
  /** Names a new test run (a simulation names them in order, to be reproducible). */
  newRunId?: () => string;
}

/** What one planning round loaded, shared by every action of the round. */
export interface ApplyContext {
  queue: Queue;
  provider: GitProvider;
  /** The snapshot's entries by id (pull request facts: number, head, title). */
  entries: ReadonlyMap<string, Entry>;
  now: Date;
}

/** A pull request of a test branch, in the order it is merged onto the branch. */
export interface BuiltPullRequest {
  entryId: string;
  number: number;
  headSha: string;
  title: string;
}

export function toBuilt(entryId: string, e: Entry | undefined): BuiltPullRequest {
  // The planner only names entries of the snapshot it was given.
  if (!e) throw new Error(`entry ${entryId} of a test run is not in the planning snapshot`);
  return { entryId, number: e.prNumber, headSha: e.prSha, title: e.prTitle };
}

export class ActionApplier {
  private readonly newRunId: () => string;

  constructor(private readonly deps: ApplierDeps) {
    this.newRunId = deps.newRunId ?? randomUUID;
  }

  /**
   * Applies the round's actions in order and stops at the first stale one. Starting runs and
   * merging depend on the queue's state and settings (paused, concurrency, merge method): if
   * the queue changed since the snapshot (say, it was paused), nothing is applied.
   */
  async applyAll(ctx: ApplyContext, actions: readonly Action[]): Promise<{ applied: number; stale: boolean }> {
    const needsQueue = actions.some((a) => a.kind === 'start_run' || a.kind === 'merge');
    if (needsQueue && !(await this.queueUnchanged(ctx.queue))) return { applied: 0, stale: true };
    let applied = 0;
    for (const action of actions) {
      if ((await this.apply(ctx, action)) === 'stale') return { applied, stale: true };
      applied++;
    }
    return { applied, stale: false };
  }

  private async apply(ctx: ApplyContext, action: Action): Promise<ApplyOutcome> {
    switch (action.kind) {
      case 'transition_entry':
        return this.transition(action, ctx.now);
      case 'start_run':
        return this.startRun(ctx, action);
      case 'cancel_run':
        return this.cancelRun(action, ctx.now);
      case 'merge':
        return this.merge(ctx, action);
      case 'note_entry':
        return this.note(action, ctx.now);
      case 'complete_mode_switch':
        return this.completeModeSwitch(action, ctx.now);
      case 'delete_branch':
        return this.deleteBranch(ctx, action);
    }
  }

  private async queueUnchanged(queue: Queue): Promise<boolean> {
    const current = await this.deps.store.queues.findById(queue.id);
    return current !== null && current.version === queue.version;
  }

  private async transition(a: TransitionEntryAction, now: Date): Promise<ApplyOutcome> {
    const set: Partial<Entry> = {};
    if (a.set.currentRunId !== undefined) set.currentRunId = a.set.currentRunId;
    if (a.set.bisectionOf !== undefined) set.bisectionOf = a.set.bisectionOf;
    if (a.set.interaction !== undefined) set.interaction = a.set.interaction;
    const change: TransitionChange = { to: a.to, reason: a.reason, detail: a.detail, restart: a.restart, set };
    if (a.testRunId) change.testRunId = a.testRunId;
    const done = await this.deps.store.entries.transition(a.entry.entryId, { from: [a.entry.expectedState], version: a.entry.expectedVersion }, change, now);
    if (!done) return 'stale';
    this.deps.logger.info(
      { entryId: done.id, prNumber: done.prNumber, from: a.entry.expectedState, to: a.to, reason: a.reason, detail: a.detail },
      'entry transition',
    );
    if (a.set.interaction) await this.noteInteraction(done, a.set.interaction, now);
    return 'applied';
  }

  /** A timeline note: retried on the entry as it is now, so it is not lost to a concurrent change. */
  private async note(a: NoteEntryAction, now: Date): Promise<ApplyOutcome> {
    await recordTimelineNote(this.deps, a.entry.entryId, { reason: a.reason, detail: a.detail }, now);
    this.deps.logger.info({ entryId: a.entry.entryId, reason: a.reason, detail: a.detail }, 'entry waits for a merge window');
    return 'applied';
  }

  /** The member an interaction check names learns it too, on its timeline (it has usually merged). */
  private async noteInteraction(ejected: Entry, found: EntryInteraction, now: Date): Promise<void> {
    const detail = `PR #${ejected.prNumber} passes alone (test run ${found.aloneRunId}) and fails only together with this pull request (test run ${found.togetherRunId}): it was ejected with the verdict interaction`;
    await recordTimelineNote(this.deps, found.withEntryId, { reason: 'interaction_found', detail, testRunId: found.togetherRunId }, now);
  }

  /**
   * Records the run first (sha unknown), moves its entries to testing, then builds the branch.
   * A crash in between leaves a run without a sha, which the next pass builds (resumeBuilds).
   */
  private async startRun(ctx: ApplyContext, a: StartRunAction): Promise<ApplyOutcome> {
    const { queue, now } = ctx;
    const id = a.runKind === 'bisection' ? `${this.newRunId()}-bisection` : this.newRunId();
    const pullRequests = [...a.base, ...a.tested].map((r) => toBuilt(r.entryId, ctx.entries.get(r.entryId)));
    const run: TestRun = {
      id,
      orgId: queue.orgId,
      queueId: queue.id,
      kind: a.runKind,
      entryIds: a.tested.map((t) => t.entryId),
      baseEntryIds: a.base.map((b) => b.entryId),
      targetSha: a.targetSha,
      branch: testBranchName(
        a.tested.map((t) => t.prNumber),
        id,
      ),
      sha: null,
      tree: null,
      recipe: recipeOf(
        a.targetSha,
        pullRequests.map((p) => p.headSha),
      ),
      status: 'in_progress',
      requiredStatuses: a.requiredStatuses,
      requiredStatusesSource: a.requiredStatusesSource,
      deadlineAt: a.timeoutMinutes > 0 ? new Date(now.getTime() + a.timeoutMinutes * 60_000) : null,
      createdAt: now,
      concludedAt: null,
      conclusionReason: null,
      branchDeleted: false,
      bisectionOf: a.bisectionOf,
      ...(a.interactionOf ? { interactionOf: a.interactionOf } : {}),
      version: 1,
    };
    await this.deps.store.testRuns.insert(run);
    for (const t of a.tested) {
      const moved = await this.deps.store.entries.transition(
        t.entryId,
        { from: ['pending'], version: t.expectedVersion },
        { to: 'testing', reason: a.reason, detail: a.detail, testRunId: id, set: { currentRunId: id } },
        now,
      );
      if (!moved) {
        // The group changed under us: the run must not test a combination nobody asked for.
        await this.deps.store.testRuns.conclude(id, 'cancelled', 'test_run_lost', now);
        return 'stale';
      }
    }
    this.deps.logger.info({ testRunId: id, kind: a.runKind, prs: a.tested.map((t) => t.prNumber), base: a.base.map((b) => b.prNumber) }, 'test run started');
    await this.build(queue, ctx.provider, run, pullRequests, now);
    return 'applied';
  }

  /**
   * Builds the test branch of a recorded run, its pull requests in order (idempotent: a retried
   * build finds its branch). Returns the run as it stands after the build: built, concluded by
   * statuses CI already reported, or failed on a merge conflict.
   */
  async build(queue: Queue, provider: GitProvider, run: TestRun, pullRequests: BuiltPullRequest[], now = new Date()): Promise<TestRun | null> {
    const reused = await this.reuse(queue, run, now);
    if (reused) return reused;
    const result = await provider.buildTestBranch(queue.repo, {
      branch: run.branch,
      baseSha: run.targetSha,
      pullRequests: pullRequests.map(({ number, headSha, title }) => ({ number, headSha, title })),
    });
    if (!result.ok) {
      const culprit = pullRequests.find((p) => p.number === result.conflictPrNumber);
      const failed = await this.deps.store.testRuns.conclude(run.id, 'failed', 'start_test_run_merge_conflict', now, culprit ? [culprit.entryId] : []);
      this.deps.logger.info(
        { testRunId: run.id, conflictPrNumber: result.conflictPrNumber, files: result.conflictedFiles },
        'test branch could not be built: merge conflict',
      );
      return failed;
    }
    const built = await this.deps.store.testRuns.recordBuild(run.id, result.sha, result.tree);
    if (!built) return null;
    this.deps.logger.info({ testRunId: run.id, branch: run.branch, sha: result.sha }, 'test branch built');
    if (built.deadlineAt) await this.deps.scheduleTimeout(built);
    const concluded = await this.deps.evaluateRun(built, queue.repo);
    if (concluded) return concluded;
    await this.deps.scheduleStatusWatch(built, statusWatchDueAt(now, queue.statusWaitMinutes));
    return built;
  }

  /** Passes a run with an earlier passing run's result when both are built from the same inputs (domain/tested-tree-reuse.ts). */
  private async reuse(queue: Queue, run: TestRun, now: Date): Promise<TestRun | null> {
    if (!queue.reuseTestedTrees || !run.recipe || run.sha !== null) return null;
    const earlier = await this.deps.store.testRuns.findPassedByRecipe(queue.id, run.recipe);
    if (!earlier || !mayReuse(run, earlier)) return null;
    const reused = await this.deps.store.testRuns.recordReuse(run.id, earlier, reuseDetail(earlier), now);
    if (reused)
      this.deps.logger.info({ testRunId: run.id, reusedFrom: earlier.id, tree: earlier.tree }, 'test run not run: an earlier run passed on the same inputs');
    return reused;
  }

  private async cancelRun(a: CancelRunAction, now: Date): Promise<ApplyOutcome> {
    const done = await this.deps.store.testRuns.conclude(a.runId, 'cancelled', a.reason, now, undefined, a.detail);
    if (!done) return 'stale';
    this.deps.logger.info({ testRunId: a.runId, reason: a.reason, detail: a.detail }, 'test run cancelled');
    return 'applied';
  }

  private async merge(ctx: ApplyContext, a: MergeAction): Promise<ApplyOutcome> {
    const { queue, now } = ctx;
    // The forge's merge cannot be undone: the entries are checked against the store once more.
    const entries = await this.deps.store.entries.findByIds(a.items.map((i) => i.entryId));
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const item of a.items) {
      const e = byId.get(item.entryId);
      if (!e || e.state !== item.expectedState || e.version !== item.expectedVersion) return 'stale';
    }
    let expectedTree: string | undefined;
    if (a.verifyTree && a.proofRunId) {
      const proof = await this.deps.store.testRuns.findById(a.proofRunId);
      if (!proof?.tree) return 'stale';
      expectedTree = proof.tree;
    }
    const result = await ctx.provider.mergePullRequests(queue.repo, {
      targetBranch: queue.branch,
      expectedHeadSha: a.expectedTargetSha,
      method: queue.mergeMethod,
      pullRequests: a.items.map((i) => {
        const e = byId.get(i.entryId)!;
        return { number: e.prNumber, headSha: e.prSha, title: e.prTitle, author: e.prAuthor, headBranch: e.prHeadBranch, baseBranch: e.prBaseBranch };
      }),
      ...(expectedTree ? { expectedTree } : {}),
    });
    if (!result.ok) {
      if (result.reason === 'target_moved') {
        this.deps.logger.info({ expected: a.expectedTargetSha, actual: result.actualHeadSha }, 'merge skipped: the target branch moved');
        return 'stale';
      }
      const detail =
        result.reason === 'conflict'
          ? (result.forgeMessage ?? `merging pull request #${result.prNumber} conflicted with the target branch`)
          : `the merged tree ${result.actualTree.slice(0, 12)} differs from the tested tree ${result.expectedTree.slice(0, 12)}; nothing was merged`;
      this.deps.logger.error({ reason: result.reason, detail }, 'merge refused');
      const culprits = result.reason === 'conflict' ? a.items.filter((i) => i.prNumber === result.prNumber) : a.items;
      for (const c of culprits) {
        await this.deps.store.entries.transition(
          c.entryId,
          { from: [c.expectedState], version: c.expectedVersion },
          { to: 'failed', reason: 'github_api_merge_pr_failed', detail },
          now,
        );
      }
      return 'stale';
    }
    let onto = a.expectedTargetSha;
    const last = a.items.at(-1);
    for (const item of a.items) {
      const mergedSha = result.mergedShas[item.prNumber] ?? null;
      // The forge checked that the merge's final tree is the tested one (expectedTree).
      const mergedTestedTree = item === last && expectedTree && mergedSha === result.newHeadSha ? expectedTree : null;
      await this.deps.store.entries.transition(
        item.entryId,
        { from: [item.expectedState], version: item.expectedVersion },
        {
          to: 'merged',
          reason: a.reason,
          detail: a.detail,
          set: { verifiedByTestRun: item.verifiedByTestRun, mergedSha, mergedOntoSha: onto, mergedTestedTree, currentRunId: null },
          ...(a.proofRunId ? { testRunId: a.proofRunId } : {}),
        },
        now,
      );
      if (mergedSha) onto = mergedSha;
    }
    await this.deps.store.queues.observeTargetHead(queue.id, result.newHeadSha);
    this.deps.logger.info({ prs: a.items.map((i) => i.prNumber), newHead: result.newHeadSha, proofRunId: a.proofRunId }, 'merged');
    return 'applied';
  }

  private async completeModeSwitch(a: CompleteModeSwitchAction, now: Date): Promise<ApplyOutcome> {
    const done = await this.deps.store.queues.update(
      a.queueId,
      a.expectedQueueVersion,
      { state: 'running', mode: a.mode, pendingMode: null },
      `mode switch to ${a.mode} completed`,
      now,
    );
    if (!done) return 'stale';
    this.deps.logger.info({ queueId: a.queueId, mode: a.mode }, 'mode switch completed');
    return 'applied';
  }

  private async deleteBranch(ctx: ApplyContext, a: DeleteBranchAction): Promise<ApplyOutcome> {
    const result = await ctx.provider.deleteBranch(ctx.queue.repo, a.branch);
    await this.deps.store.testRuns.markBranchDeleted(a.runId);
    this.deps.logger.debug({ testRunId: a.runId, branch: a.branch, result }, 'test branch deleted');
    return 'applied';
  }
}
