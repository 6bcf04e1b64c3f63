// Runs the bisection of failed batches (transition-table row 21): members of a bisection carry
// `bisectionOf` = the failed batch run; their states follow the culprit search — culprits fail,
// proven members wait to merge as tests_passed, members under test are `testing`, the others
// wait as `pending`. The bisection is abandoned (members return to the queue) when its base
// lost an entry or the target branch moved outside the queue.
import type { Entry, TestRun } from '../model.js';
import { isAdmitted, mergedByQueue, prLabel } from './entry-states.js';
import { fail } from './main-groups.js';
import { buildCulprits, chainOf, deadlinePassed, failureReasonOf, runOutcome } from './run-outcome.js';
import { evictedInBase, rootStaleness, type Invalidity } from './run-validity.js';
import { searchCulprits, type BisectionState, type Probe, type ProbeResult } from './bisection-search.js';
import type { World } from './world.js';

/** Failed batch runs some admitted entry is bisecting, oldest first. */
export function activeRoots(world: World): string[] {
  const roots = new Set<string>();
  for (const e of world.entries.values()) if (isAdmitted(e) && e.bisectionOf) roots.add(e.bisectionOf);
  const order = [...world.runs.keys()];
  return [...roots].sort((a, b) => indexOr(order, a) - indexOr(order, b) || (a < b ? -1 : 1));
}

function indexOr(list: string[], id: string): number {
  const i = list.indexOf(id);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

export function membersOf(world: World, rootId: string): Entry[] {
  return [...world.entries.values()].filter((e) => isAdmitted(e) && e.bisectionOf === rootId);
}

export function bisectionRuns(world: World, rootId: string): TestRun[] {
  return [...world.runs.values()].filter((r) => r.kind === 'bisection' && r.bisectionOf === rootId);
}

/** Bisection runs past their deadline are cancelled; the search counts them as failures. */
export function timeOutBisectionRuns(world: World): void {
  for (const run of [...world.runs.values()]) {
    if (run.kind === 'bisection' && deadlinePassed(run, world.now)) {
      world.cancelRun(run, 'test_run_timeout', `no result within ${world.queue.testingTimeoutMinutes} minutes`);
    }
  }
}

export interface BisectionView {
  root: TestRun;
  state: BisectionState;
}

/** Why the bisection of `rootId` cannot go on, or null. */
function abandonment(world: World, rootId: string): Invalidity | null {
  const root = world.run(rootId);
  if (!root || root.kind !== 'main' || runOutcome(root) !== 'failed') {
    return { reason: 'test_run_lost', detail: 'the failed batch run being bisected is gone' };
  }
  const strangers = membersOf(world, rootId).filter((e) => !root.entryIds.includes(e.id));
  if (strangers.length > 0) return { reason: 'test_run_lost', detail: `${prLabel(strangers[0], strangers[0]!.id)} is not part of the batch` };
  return evictedInBase(world, root) ?? rootStaleness(world, root);
}

/** The culprit search of a (healthy) bisection, from the results recorded so far. */
export function viewBisection(world: World, rootId: string): BisectionView | null {
  const root = world.run(rootId);
  if (!root || abandonment(world, rootId)) return null;
  const memberSet = new Set(root.entryIds);
  const removed = new Set<string>();
  for (const id of root.entryIds) {
    const e = world.entry(id);
    if (!e || (!isAdmitted(e) && !mergedByQueue(e))) removed.add(id);
  }
  // Innocents merge while the search goes on; later runs are built on top of them, so a run's
  // members are its own base-then-tested members plus those merged before it started.
  const mergedMembers = new Set(root.entryIds.filter((id) => isMergedByQueue(world, id)));
  const results: ProbeResult[] = [];
  for (const run of [root, ...bisectionRuns(world, rootId)]) {
    const outcome = runOutcome(run);
    if (outcome === 'build_failed') buildCulprits(run).forEach((id) => memberSet.has(id) && removed.add(id));
    if (outcome !== 'passed' && outcome !== 'failed') continue;
    const chain = new Set(chainOf(run));
    results.push({
      runId: run.id,
      chain: root.entryIds.filter((id) => chain.has(id) || mergedMembers.has(id)),
      passed: outcome === 'passed',
      failureReason: failureReasonOf(run),
    });
  }
  // Members that merged (an optimistic merge can take them mid-search) were proven by the run
  // that merged them: the merged head of the candidates counts as a passed prefix.
  const mergedPrefix: string[] = [];
  for (const id of root.entryIds) {
    if (removed.has(id)) continue;
    if (!mergedMembers.has(id)) break;
    mergedPrefix.push(id);
  }
  if (mergedPrefix.length > 0) {
    const proof = world.entry(mergedPrefix[mergedPrefix.length - 1]!)?.verifiedByTestRun ?? root.id;
    results.push({ runId: proof, chain: mergedPrefix, passed: true, failureReason: 'test_run_required_status_failed' });
  }
  const skip = world.queue.optimizationMode === 'bisection_skip_redundant_tests';
  return { root, state: searchCulprits(root.entryIds, removed, results, skip) };
}

function isMergedByQueue(world: World, id: string): boolean {
  const e = world.entry(id);
  return e !== undefined && mergedByQueue(e);
}

/** Identifies a probe by its tested members and the not-yet-merged members below them. */
export function probeKey(world: World, tested: readonly string[], base: readonly string[]): string {
  return `${base.filter((id) => !isMergedByQueue(world, id)).join(',')}|${tested.join(',')}`;
}

export function runProbeKey(world: World, run: TestRun, members: ReadonlySet<string>): string {
  return probeKey(
    world,
    run.entryIds,
    run.baseEntryIds.filter((id) => members.has(id)),
  );
}

/** Brings every bisection's members in line with its culprit search. */
export function advanceBisections(world: World): void {
  for (const rootId of activeRoots(world)) advance(world, rootId);
}

function advance(world: World, rootId: string): void {
  const reason = abandonment(world, rootId);
  if (reason) return abandon(world, rootId, reason);
  const view = viewBisection(world, rootId);
  if (!view) return;
  const { root, state } = view;
  const memberSet = new Set(root.entryIds);
  for (const id of root.entryIds) {
    const e = world.entry(id);
    const run = [root, ...bisectionRuns(world, rootId)].find((r) => runOutcome(r) === 'build_failed' && buildCulprits(r).includes(id));
    if (e && isAdmitted(e) && run)
      fail(world, e, run.conclusionReason ?? 'start_test_run_merge_conflict', 'the test branch could not be built with it', run.id);
  }
  for (const c of state.culprits) {
    const e = world.entry(c.entryId);
    if (e && isAdmitted(e)) fail(world, e, c.reason, `bisection isolated it: test run ${c.runId} failed`, c.runId);
  }
  const needed = new Set(state.probes.map((p) => probeKey(world, p.tested, p.base)));
  for (const run of bisectionRuns(world, rootId)) {
    if (run.status === 'in_progress' && !needed.has(runProbeKey(world, run, memberSet))) {
      world.cancelRun(run, 'bisection_required', 'the bisection no longer needs this run');
    }
  }
  const proven = new Set(state.candidates.slice(0, state.proven));
  for (const id of state.candidates) {
    const e = world.entry(id);
    if (!e || !isAdmitted(e)) continue;
    if (proven.has(id)) markProven(world, e, state.proofRunId);
    else if (!testingInLiveProbe(world, e, needed, memberSet) && e.state !== 'pending') {
      world.transition(e, 'pending', 'bisection_required', 'waiting for the next bisection run', { set: { currentRunId: null } });
    }
  }
}

function markProven(world: World, e: Entry, proofRunId: string | null): void {
  if (e.state === 'tests_passed') return;
  const own = world.run(e.currentRunId);
  const runId = own && own.status === 'succeeded' ? own.id : proofRunId;
  world.transition(e, 'tests_passed', 'bisection_test_run_passed', `a bisection run including it passed (${runId ?? 'none'})`, {
    set: { currentRunId: runId },
    testRunId: runId,
  });
}

function testingInLiveProbe(world: World, e: Entry, needed: ReadonlySet<string>, members: ReadonlySet<string>): boolean {
  const run = world.run(e.currentRunId);
  return e.state === 'testing' && run !== undefined && run.status === 'in_progress' && needed.has(runProbeKey(world, run, members));
}

/** Every member returns to the queue as an ordinary entry; runs of the bisection stop. */
function abandon(world: World, rootId: string, why: Invalidity): void {
  for (const run of bisectionRuns(world, rootId)) world.cancelRun(run, why.reason, why.detail);
  for (const e of membersOf(world, rootId)) world.restart(e, why.reason, `bisection abandoned: ${why.detail}`, rootId);
}

/** Probes of every bisection that have no run yet, in bisection order. */
export function probesToStart(world: World): { root: TestRun; probe: Probe }[] {
  const out: { root: TestRun; probe: Probe }[] = [];
  for (const rootId of activeRoots(world)) {
    const view = viewBisection(world, rootId);
    if (!view) continue;
    const members = new Set(view.root.entryIds);
    const existing = new Set(
      bisectionRuns(world, rootId)
        .filter((r) => r.status !== 'cancelled' || r.conclusionReason === 'test_run_timeout')
        .map((r) => runProbeKey(world, r, members)),
    );
    for (const probe of view.state.probes) {
      if (!existing.has(probeKey(world, probe.tested, probe.base))) out.push({ root: view.root, probe });
    }
  }
  return out;
}
