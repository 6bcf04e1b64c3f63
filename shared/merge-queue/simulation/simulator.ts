// The engine in virtual time: its own planning pass (EngineService: load → plan → apply with its
// ActionApplier) over in-memory repositories and the in-memory forge, on a clock the caller moves.
// The caller plays CI (concludes runs) and the world (adds entries, pushes outside the queue).
// While the engine applies actions, the store checks its invariants: never more runs than slots,
// never a base holding a finished entry, never a merge of an untested combination, never a double
// merge, never a running run's branch deleted; and each pass, that the planner is deterministic.
import type { Entry, Queue, Reason, TestRun } from '../domain/model.js';
import { plan } from '../domain/planner/plan.js';
import type { ImpactedTargetSet, PlanInput, PlannerQueue } from '../domain/planner/types.js';
import { overlaps } from '../domain/planner/dependencies.js';
import { EngineService, MAX_ITERATIONS, type PassSummary } from '../services/engine/engine-service.js';
import { loadSnapshot } from '../services/engine/plan-snapshot.js';
import { ScheduleSource } from '../services/schedule-source.js';
import { ChangedPathsSource } from '../services/changed-paths-source.js';
import { PathLanesSource } from '../services/path-lanes-source.js';
import { laneTargets, type PathLanes } from '../domain/path-lanes.js';
import { TRUNK_CONFIG_PATH, parseTrunkLanes } from '../domain/trunk-config.js';
import { NO_TEST_RESULTS, type RunTestResultsSource } from '../services/run-test-results.js';
import type { MergePullRequestsInput, MergePullRequestsResult } from '../services/provider.js';
import { newQueue } from '../store/queue-repository.js';
import type { TransitionChange, TransitionGuard } from '../store/entry-repository.js';
import { createLogger } from '../../platform/logging.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import {
  InMemoryCommitStatusRepository,
  InMemoryEntryRepository,
  InMemoryImpactedTargetsRepository,
  InMemoryQueueRepository,
  InMemoryTestRunRepository,
  type InMemoryRepositories,
} from './in-memory-repositories.js';
import { InMemoryForge, type MemoryRepository } from './in-memory-forge.js';
import { InvariantViolation } from './invariant-violation.js';

export { InvariantViolation };

export const SIM_REPO: RepoRef = { host: 'simulation', owner: 'sim', name: 'repo' };
export const SIM_START = new Date('2026-01-01T00:00:00Z');
const CHANGE_DIR = 'changes/';
const OUTSIDE_DIR = 'outside/';
/** A change's file: an entry's marker (changes/<id>, or <top>/changes/<id>) or an outside push's. */
const isChangePath = (path: string) => path.startsWith(CHANGE_DIR) || path.includes(`/${CHANGE_DIR}`) || path.startsWith(OUTSIDE_DIR);
const changeOfPath = (path: string) => path.slice(path.lastIndexOf('/') + 1);
/** The file every conflicting entry edits, on the same line. */
const CONTENDED_FILE = 'contended.txt';

export interface SimOptions {
  queue: PlannerQueue;
  entries: Entry[];
  /** Impacted targets uploaded for entries (an entry with targets is ready for parallel mode). */
  targets?: Record<string, ImpactedTargetSet>;
  /** Entries whose changes break the build: a run containing one fails (see verdict). */
  bad?: ReadonlySet<string>;
  /** Pairs of entries that each pass alone and break the build together (an interaction): a run holding both fails. */
  clashes?: readonly (readonly [string, string])[];
  /** Entries that edit the same line of one file: any two of them conflict, whichever lands first. */
  conflicts?: ReadonlySet<string>;
  /** Checks before every pass that planning the snapshot twice gives the same plan (costs a plan). */
  checkDeterminism?: boolean;
  /** The clock's start (ms since the epoch). */
  start?: number;
  /** Test results of the runs, as CI uploads them (the flake model); none by default. */
  testResults?: RunTestResultsSource;
  /** Files of the repository's first commit besides the contended file (a `.trunk/trunk.yaml` with lanes). */
  repoFiles?: Readonly<Record<string, string>>;
}

type RunStatusCheck = (run: TestRun) => void;
type MergeCheck = (entry: Entry, proofRunId: string | undefined) => void;

class CheckedTestRunRepository extends InMemoryTestRunRepository {
  constructor(private readonly onStart: RunStatusCheck) {
    super();
  }

  override async insert(run: TestRun): Promise<void> {
    await super.insert(run);
    this.onStart(run);
  }

  override async markBranchDeleted(id: string): Promise<void> {
    if (this.rows.get(id)?.status === 'in_progress') throw new InvariantViolation(`deleting the branch of a running run ${id}`);
    await super.markBranchDeleted(id);
  }
}

class CheckedEntryRepository extends InMemoryEntryRepository {
  constructor(private readonly onMerged: MergeCheck) {
    super();
  }

  override async transition(id: string, guard: TransitionGuard, change: TransitionChange, now?: Date): Promise<Entry | null> {
    const done = await super.transition(id, guard, change, now);
    if (done && change.to === 'merged') this.onMerged(done, change.testRunId);
    return done;
  }
}

const TERMINAL = ['merged', 'failed', 'cancelled'];

export class Simulator {
  readonly store: InMemoryRepositories;
  readonly forge: InMemoryForge;
  /** The simulated repository: every entry's change is the file changes/<entry id> (below its files' top directory, when it writes files). */
  readonly repo: MemoryRepository;
  readonly engine: EngineService;
  readonly queueId: string;
  now: number;
  readonly targets: Record<string, ImpactedTargetSet>;
  readonly bad: ReadonlySet<string>;
  readonly clashes: readonly (readonly [string, string])[];
  readonly conflicts: ReadonlySet<string>;
  /** Entry ids in the order they merged. */
  readonly mergeOrder: string[] = [];
  maxMainRuns = 0;
  /** When the planner last asked to be woken (a batch's wait, a deadline), or null. */
  lastWake: Date | null = null;
  /** Runs' timeout checks, as the engine schedules them: run id → deadline. */
  readonly timeouts = new Map<string, Date>();
  private readonly checkDeterminism: boolean;
  private readonly testResults: RunTestResultsSource;
  private readonly entryOfPr = new Map<number, string>();
  private readonly mergedPrs = new Set<number>();
  private runCounter = 0;
  private readonly schedules = new ScheduleSource();
  private readonly changedPaths = new ChangedPathsSource(createLogger('silent'));
  private readonly lanes = new PathLanesSource();
  /** Each entry's marker file: a build holds the change when it holds the file. */
  private readonly markers = new Map<string, string>();
  /** The repository's lanes from paths, and each entry's lanes by them (what a merge's dependencies are checked against). */
  private readonly pathLanes: PathLanes | null;
  private readonly laneTargetsOf = new Map<string, ImpactedTargetSet>();

  constructor(o: SimOptions) {
    this.now = o.start ?? SIM_START.getTime();
    this.targets = { ...(o.targets ?? {}) };
    this.bad = o.bad ?? new Set();
    this.clashes = o.clashes ?? [];
    this.conflicts = o.conflicts ?? new Set();
    this.checkDeterminism = o.checkDeterminism ?? true;
    this.testResults = o.testResults ?? NO_TEST_RESULTS;
    this.queueId = o.queue.id;
    this.store = {
      queues: new InMemoryQueueRepository(),
      entries: new CheckedEntryRepository((e, proof) => this.checkMerged(e, proof)),
      testRuns: new CheckedTestRunRepository((r) => this.checkStarted(r)),
      commitStatuses: new InMemoryCommitStatusRepository(),
      impactedTargets: new InMemoryImpactedTargetsRepository(),
    };
    this.forge = new InMemoryForge((_repo, input, result) => this.checkForgeMerge(input, result));
    this.repo = this.forge.createRepository(SIM_REPO, { [CONTENDED_FILE]: 'untouched\n', ...(o.repoFiles ?? {}) });
    const trunk = parseTrunkLanes(o.repoFiles?.[TRUNK_CONFIG_PATH] ?? null);
    this.pathLanes = trunk.kind === 'lanes' ? trunk.lanes : null;
    const stored: Queue = {
      ...newQueue('o1', SIM_REPO, 'main', { mode: o.queue.mode, concurrency: o.queue.concurrency, targetSha: this.head }, new Date(this.now)),
      ...o.queue,
      requiredStatuses: ['ci'],
    };
    this.store.queues.rows.set(stored.id, { ...stored, history: [] });
    for (const e of o.entries) this.addEntry(e, this.targets[e.id]);
    this.engine = new EngineService({
      store: this.store,
      providers: this.forge.registry(),
      logger: createLogger('silent'),
      scheduleTimeout: async (run) => {
        if (run.deadlineAt) this.timeouts.set(run.id, run.deadlineAt);
      },
      scheduleWake: async () => {},
      // The simulated CI reports every required status: the stall watchdog has nothing to find.
      scheduleStatusWatch: async () => {},
      evaluateRun: async () => null,
      testResults: this.testResults,
      schedules: this.schedules,
      changedPaths: this.changedPaths,
      clock: () => new Date(this.now),
      newRunId: () => `run${++this.runCounter}`,
    });
  }

  /** The store's entries by id (live rows: a test may edit one as an outside writer would). */
  get entries(): Map<string, Entry> {
    return this.store.entries.rows;
  }

  get runs(): Map<string, TestRun> {
    return this.store.testRuns.rows;
  }

  get queue(): Queue {
    return this.store.queues.rows.get(this.queueId)!;
  }

  /** Changes the stored queue as an outside writer (the API) would. */
  set queue(q: Queue) {
    Object.assign(this.store.queues.rows.get(this.queueId)!, q);
  }

  get head(): string {
    return this.repo.head('main')!;
  }

  /** Someone pushes `change` to the target branch outside the queue; returns the new head. */
  pushOutside(change: string, sha?: string): string {
    return this.repo.push('main', { [`${OUTSIDE_DIR}${change}`]: change }, sha);
  }

  /** The changes (entries' and outside pushes') a commit holds, oldest first. */
  changesAt(sha: string): string[] {
    return Object.keys(this.repo.filesAt(sha)).filter(isChangePath).map(changeOfPath);
  }

  /** Merges as the forge performed them, with the run that proved each. */
  get merges(): { entryIds: string[]; proofRunId: string | null }[] {
    return this.repo.merges.map((m) => {
      const entryIds = m.prNumbers.map((n) => this.changeOf(n));
      const last = this.entries.get(entryIds[0]!)?.history.findLast((h) => h.to === 'merged');
      return { entryIds, proofRunId: last?.testRunId ?? null };
    });
  }

  /** A pull request enters the queue (with its impacted targets uploaded, if given). */
  /** What an entry impacts: its upload, else its lanes from paths, else everything. */
  private targetsOf(id: string): ImpactedTargetSet {
    return this.targets[id] ?? this.laneTargetsOf.get(id) ?? 'ALL';
  }

  private markerOf(id: string): string {
    return this.markers.get(id) ?? `${CHANGE_DIR}${id}`;
  }

  /** `files`: what its change writes besides its marker file, each its own so that no two entries conflict. */
  addEntry(e: Entry, targets?: ImpactedTargetSet, files?: readonly string[]): void {
    const stored = targets === undefined ? { ...e } : { ...e, readiness: { ...e.readiness, hasImpactedTargets: true } };
    this.store.entries.rows.set(e.id, stored);
    this.entryOfPr.set(e.prNumber, e.id);
    // The change's marker lives beside its files (in their top directory), so lanes see only its files.
    const top = files?.[0]?.includes('/') ? `${files[0].slice(0, files[0].indexOf('/'))}/` : '';
    this.markers.set(e.id, `${top}${CHANGE_DIR}${e.id}`);
    if (targets === undefined && files && this.pathLanes) this.laneTargetsOf.set(e.id, laneTargets(this.pathLanes, [this.markerOf(e.id), ...files]));
    const changes = {
      [this.markerOf(e.id)]: e.id,
      ...Object.fromEntries((files ?? []).map((f) => [f, e.id])),
      ...(this.conflicts.has(e.id) ? { [CONTENDED_FILE]: `${e.id}\n` } : {}),
    };
    // A stack member is built on the member below it (its head branch is this one's base).
    const below = e.stack?.belowHeadBranch;
    this.repo.openPullRequest({
      number: e.prNumber,
      title: e.id,
      headSha: e.prSha,
      commits: [changes],
      ...(below ? { base: below } : {}),
      ...(e.prHeadBranch ? { headBranch: e.prHeadBranch } : {}),
    });
    if (targets !== undefined) {
      this.targets[e.id] = targets;
      // The in-memory repository stores synchronously: the upload is done when set() returns.
      void this.store.impactedTargets.set(this.queueId, e.prNumber, e.prSha, targets === 'ALL' ? 'ALL' : [...targets]);
    }
  }

  private changeOf(prNumber: number): string {
    let id = this.entryOfPr.get(prNumber);
    if (id === undefined) {
      for (const e of this.entries.values()) this.entryOfPr.set(e.prNumber, e.id);
      id = this.entryOfPr.get(prNumber);
    }
    if (id === undefined) throw new InvariantViolation(`pull request #${prNumber} has no entry`);
    return id;
  }

  /**
   * One planning pass of the engine at the current time: due timeout checks first (as their
   * delayed jobs would run), then load → plan → apply until the planner has nothing to do.
   */
  async settle(): Promise<PassSummary> {
    for (const [runId, deadline] of [...this.timeouts]) {
      if (deadline.getTime() > this.now) continue;
      this.timeouts.delete(runId);
      await this.engine.expireRun(runId, deadline.getTime());
    }
    if (this.checkDeterminism) await this.checkPlanDeterminism();
    const summary = await this.engine.planQueue(this.queueId);
    if (summary.iterations >= MAX_ITERATIONS) throw new InvariantViolation(`no quiescence after ${MAX_ITERATIONS} planning rounds`);
    this.lastWake = summary.wakeAt;
    // A concluded run's timeout check would find nothing to do: it is not an event to wait for.
    for (const runId of this.timeouts.keys()) if (this.runs.get(runId)?.status !== 'in_progress') this.timeouts.delete(runId);
    return summary;
  }

  /** What the engine's planning pass would load now (the planner's input). */
  async snapshot(): Promise<PlanInput> {
    const sources = { testResults: this.testResults, schedules: this.schedules, changedPaths: this.changedPaths, lanes: this.lanes };
    return (await loadSnapshot(this.store, this.queue, this.forge, sources, new Date(this.now))).input;
  }

  private async checkPlanDeterminism(): Promise<void> {
    const input = await this.snapshot();
    if (JSON.stringify(plan(input)) !== JSON.stringify(plan(input))) throw new InvariantViolation('plan is not deterministic');
  }

  /** CI reports on a run. */
  async conclude(runId: string, status: 'succeeded' | 'failed' | 'cancelled', reason: Reason): Promise<void> {
    await this.store.testRuns.conclude(runId, status, reason, new Date(this.now));
  }

  /** What deterministic CI says about a run: it fails iff its branch holds a bad change, or both changes of a clash. */
  verdict(r: TestRun): 'succeeded' | 'failed' {
    if (!r.sha) throw new InvariantViolation(`run ${r.id} was never built`);
    const holds = (id: string): boolean => this.repo.fileAt(r.sha!, this.markerOf(id)) !== null;
    const breaks = [...this.bad].some(holds) || this.clashes.some(([a, b]) => holds(a) && holds(b));
    return breaks ? 'failed' : 'succeeded';
  }

  inProgress(): TestRun[] {
    return [...this.runs.values()].filter((r) => r.status === 'in_progress');
  }

  allTerminal(): boolean {
    return [...this.entries.values()].every((e) => TERMINAL.includes(e.state));
  }

  private checkStarted(run: TestRun): void {
    const running = [...this.runs.values()].filter((r) => r.status === 'in_progress');
    const main = running.filter((r) => r.kind === 'main').length;
    const bisection = running.filter((r) => r.kind === 'bisection').length;
    this.maxMainRuns = Math.max(this.maxMainRuns, main);
    if (main > this.queue.concurrency) throw new InvariantViolation(`${main} main runs with concurrency ${this.queue.concurrency}`);
    if (bisection > Math.max(1, this.queue.bisectionConcurrency)) throw new InvariantViolation(`${bisection} bisection runs`);
    for (const id of run.baseEntryIds) {
      const e = this.entries.get(id)!;
      // An interaction check stacks the batch's base again on the batch's own target sha.
      if (run.interactionOf && e.state === 'merged') continue;
      if ([...TERMINAL, 'not_ready'].includes(e.state)) throw new InvariantViolation(`base holds ${e.id} in state ${e.state}`);
    }
  }

  /**
   * A request no correct engine makes is a defect here, not a refusal to recover from: merging a
   * pull request twice, or a tree other than the tested one.
   */
  private checkForgeMerge(input: MergePullRequestsInput, result: MergePullRequestsResult): void {
    if (!result.ok && result.reason === 'tree_mismatch')
      throw new InvariantViolation(`merged tree ${result.actualTree} differs from the tested ${result.expectedTree}`);
    if (!result.ok) return;
    for (const pr of input.pullRequests) {
      if (this.mergedPrs.has(pr.number)) throw new InvariantViolation(`pull request #${pr.number} would merge twice`);
      this.mergedPrs.add(pr.number);
    }
  }

  /** A merge must be proved by a passed run that tested it, with nothing it depends on untested below. */
  private checkMerged(e: Entry, proofRunId: string | undefined): void {
    this.mergeOrder.push(e.id);
    if (proofRunId === undefined) return;
    const proof = this.runs.get(proofRunId);
    if (!proof?.sha || proof.status !== 'succeeded') throw new InvariantViolation(`${e.id} merged without a passed proof run ${proofRunId}`);
    if (this.repo.fileAt(proof.sha, this.markerOf(e.id)) === null) throw new InvariantViolation(`${e.id} merged without being tested by ${proofRunId}`);
    // The changes the merged commit holds and the tested one does not: each is one file, so only
    // files that differ between the two commits can be such a change (reading both whole trees
    // grew with the history, and was a fifth of a long replay).
    const mergedSha = e.mergedSha!;
    for (const path of this.repo.differingPaths(mergedSha, proof.sha)) {
      if (!isChangePath(path) || this.repo.fileAt(mergedSha, path) === null || this.repo.fileAt(proof.sha, path) !== null) continue;
      const x = changeOfPath(path);
      if (overlaps(this.targetsOf(x), this.targetsOf(e.id))) throw new InvariantViolation(`${e.id} merged on top of untested dependent change ${x}`);
    }
  }
}

/** Concludes the in-progress run that tests exactly these PRs (in order). */
export async function finish(sim: Simulator, prs: number[], verdict: 'succeeded' | 'failed'): Promise<TestRun> {
  const ids = prs.map((n) => `e${n}`).join(',');
  const r = sim.inProgress().find((x) => x.entryIds.join(',') === ids);
  if (!r)
    throw new Error(
      `no run in progress tests ${ids}; running: ${sim
        .inProgress()
        .map((x) => x.entryIds.join(','))
        .join(' / ')}`,
    );
  await sim.conclude(r.id, verdict, verdict === 'succeeded' ? 'test_run_passed' : 'test_run_failed');
  return r;
}

/** Running runs as "tested|base" strings of PR numbers, in start order. */
export function running(sim: Simulator): string[] {
  const pr = (id: string): string => id.slice(1);
  return sim.inProgress().map((r) => `${r.entryIds.map(pr).join(',')}|${r.baseEntryIds.map(pr).join(',')}`);
}

export function states(sim: Simulator): Record<string, string> {
  return Object.fromEntries([...sim.entries.values()].map((e) => [e.id, e.state]));
}
