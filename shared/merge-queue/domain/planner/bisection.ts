// Runs the bisection of failed batches (transition-table row 21): members of a bisection carry
// `bisectionOf` = the failed batch run; their states follow the culprit search — culprits fail,
// proven members wait to merge as tests_passed, members under test are `testing`, the others
// wait as `pending`, suspects under an interaction check are tested alone or with the members
// below them on the batch's own base (bisection-search.ts). The bisection is abandoned (members
// return to the queue) when its base lost an entry or the target branch moved outside the queue,
// unless only suspects (and culprits) remain: their checks do not depend on the target head.
import type { Entry, TestRun } from '../model.js';
import { isAdmitted, mergedByQueue, prLabel } from './entry-states.js';
import { buildCulprits, chainOf, deadlinePassed, failureReasonOf, runOutcome } from './run-outcome.js';
import { evictedInBase, rootStaleness, type Invalidity } from './run-validity.js';
import { searchCulprits, type BisectionState, type Cleared, type Culprit, type Probe, type ProbeResult, type Suspect } from './bisection-search.js';
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

/** The culprit search of the bisection of `rootId`, derived once, or why it cannot go on. */
function inspect(world: World, rootId: string): BisectionView | Invalidity {
  const root = world.run(rootId);
  if (!root || root.kind !== 'main' || runOutcome(root) !== 'failed') {
    return { reason: 'test_run_lost', detail: 'the failed batch run being bisected is gone' };
  }
  const strangers = membersOf(world, rootId).filter((e) => !root.entryIds.includes(e.id));
  if (strangers.length > 0) return { reason: 'test_run_lost', detail: `${prLabel(strangers[0], strangers[0]!.id)} is not part of the batch` };
  const state = deriveBisection(world, root);
  const invalid = evictedInBase(world, root) ?? rootStaleness(world, root);
  if (!invalid) return { root, state };
  // Suspects' checks (and what they conclude) are built on the batch's own base.
  const settled = new Set([...state.suspects, ...state.culprits, ...state.cleared].map((s) => s.entryId));
  return membersOf(world, rootId).every((e) => settled.has(e.id)) ? { root, state } : invalid;
}

/** The culprit search of a (healthy) bisection, from the results recorded so far. */
export function viewBisection(world: World, rootId: string): BisectionView | null {
  const found = inspect(world, rootId);
  return 'state' in found ? found : null;
}

/** Members under an interaction check: they stand outside the line while their check runs. */
export function interactionSuspects(world: World): Set<string> {
  const out = new Set<string>();
  for (const rootId of activeRoots(world)) viewBisection(world, rootId)?.state.suspects.forEach((s) => out.add(s.entryId));
  return out;
}

function deriveBisection(world: World, root: TestRun): BisectionState {
  const memberSet = new Set(root.entryIds);
  const removed = new Set<string>();
  for (const id of root.entryIds) {
    const e = world.entry(id);
    if (!e || (!isAdmitted(e) && !mergedByQueue(e))) removed.add(id);
  }
  const mergedMembers = new Set(root.entryIds.filter((id) => isMergedByQueue(world, id)));
  const results: ProbeResult[] = [];
  const running: string[][] = [];
  for (const run of [root, ...bisectionRuns(world, root.id)]) {
    const outcome = runOutcome(run);
    if (outcome === 'running' && !run.interactionOf) running.push(root.entryIds.filter((id) => heldBy(world, run, root, mergedMembers).has(id)));
    if (outcome === 'build_failed' && !run.interactionOf) buildCulprits(run).forEach((id) => memberSet.has(id) && removed.add(id));
    const unbuildable = outcome === 'build_failed' && Boolean(run.interactionOf);
    if (outcome !== 'passed' && outcome !== 'failed' && !unbuildable) continue;
    const chain = heldBy(world, run, root, mergedMembers);
    results.push({
      runId: run.id,
      chain: [...(run.interactionOf ? checkChain(run, memberSet) : root.entryIds.filter((id) => chain.has(id)))],
      passed: outcome === 'passed',
      failureReason: failureReasonOf(run),
      interactionOf: run.interactionOf ?? null,
      ...(unbuildable ? { unbuildable } : {}),
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
  return searchCulprits(root.entryIds, removed, results, {
    skipRedundant: world.queue.optimizationMode === 'bisection_skip_redundant_tests',
    ways: Math.max(1, world.queue.bisectionConcurrency),
    running,
    // A stack member holds the commits of the members below it: it cannot be tested without them.
    checkInteraction: (id) => world.queue.checkInteractions && !world.entry(id)?.stack,
  });
}

/**
 * Innocents merge while the search goes on and later runs are built on top of them: a run holds
 * its own base-then-tested members and those merged into the target sha it was built on.
 */
function heldBy(world: World, run: TestRun, root: TestRun, mergedMembers: ReadonlySet<string>): Set<string> {
  return new Set([...chainOf(run), ...mergedUnder(world, run, root, mergedMembers)]);
}

/**
 * The members merged into the target sha `run` was built on since the batch's: followed through
 * the queue's merges; when they do not lead back (another lane merged in between), every merged
 * member. A check's run is built on the batch's own sha: none.
 */
function mergedUnder(world: World, run: TestRun, root: TestRun, mergedMembers: ReadonlySet<string>): Iterable<string> {
  if (run.interactionOf) return [];
  const walked: string[] = [];
  const seen = new Set<string>();
  for (let sha = run.targetSha; sha !== root.targetSha;) {
    const e = world.mergedByResultSha.get(sha);
    if (!e?.mergedOntoSha || seen.has(sha)) return mergedMembers;
    seen.add(sha);
    if (mergedMembers.has(e.id)) walked.push(e.id);
    sha = e.mergedOntoSha;
  }
  return walked;
}

/** The batch members an interaction check's run holds, in the order it stacked them. */
function checkChain(run: TestRun, members: ReadonlySet<string>): string[] {
  return chainOf(run).filter((id) => members.has(id));
}

function isMergedByQueue(world: World, id: string): boolean {
  const e = world.entry(id);
  return e !== undefined && mergedByQueue(e);
}

/**
 * Identifies a probe by its tested members and the not-yet-merged members below them; a check's
 * probe, built on the batch's own base, by its suspect and every member below it.
 */
export function probeKey(world: World, probe: Probe): string {
  if (probe.interactionOf) return `check:${probe.interactionOf}:${probe.base.join(',')}|${probe.tested.join(',')}`;
  return `${probe.base.filter((id) => !isMergedByQueue(world, id)).join(',')}|${probe.tested.join(',')}`;
}

export function runProbeKey(world: World, run: TestRun, members: ReadonlySet<string>): string {
  const base = run.baseEntryIds.filter((id) => members.has(id));
  return probeKey(world, { tested: run.entryIds, base, ...(run.interactionOf ? { interactionOf: run.interactionOf } : {}) });
}

/** Brings every bisection's members in line with its culprit search. */
export function advanceBisections(world: World): void {
  for (const rootId of activeRoots(world)) advance(world, rootId);
}

function advance(world: World, rootId: string): void {
  const found = inspect(world, rootId);
  if (!('state' in found)) return abandon(world, rootId, found);
  const { root, state } = found;
  const memberSet = new Set(root.entryIds);
  for (const id of root.entryIds) {
    const e = world.entry(id);
    const run = [root, ...bisectionRuns(world, rootId)].find((r) => runOutcome(r) === 'build_failed' && buildCulprits(r).includes(id));
    if (e && isAdmitted(e) && run)
      world.transition(e, 'failed', run.conclusionReason ?? 'start_test_run_merge_conflict', 'the test branch could not be built with it', {
        testRunId: run.id,
      });
  }
  for (const c of state.culprits) {
    const e = world.entry(c.entryId);
    if (e && isAdmitted(e)) condemn(world, e, c);
  }
  const cleared = state.cleared[0];
  if (cleared) return clear(world, rootId, cleared);
  const needed = new Set(state.probes.map((p) => probeKey(world, p)));
  for (const run of bisectionRuns(world, rootId)) {
    if (run.status === 'in_progress' && !needed.has(runProbeKey(world, run, memberSet))) {
      world.cancelRun(run, 'bisection_required', 'the bisection no longer needs this run');
    }
  }
  const proven = new Set(state.candidates.slice(0, state.proven));
  const suspects = new Map(state.suspects.map((s) => [s.entryId, s]));
  for (const id of [...state.candidates, ...suspects.keys()]) {
    const e = world.entry(id);
    if (!e || !isAdmitted(e)) continue;
    if (proven.has(id)) markProven(world, e, state.proofRunId);
    else if (!testingInLiveProbe(world, e, needed, memberSet) && e.state !== 'pending') {
      const suspect = suspects.get(id);
      const detail = suspect ? `the interaction check: ${checkWords(world, suspect)}` : 'waiting for the next bisection run';
      world.transition(e, 'pending', 'bisection_required', detail, { set: { currentRunId: null }, testRunId: suspect?.blamedBy ?? null });
    }
  }
}

/**
 * A flake blamed a member: the search's results no longer say where it stands, and members after
 * it may have been proven without it. The bisection ends; its members go back to the queue.
 */
function clear(world: World, rootId: string, c: Cleared): void {
  const below = c.below.map((id) => prLabel(world.entry(id), id)).join(', ');
  const who = prLabel(world.entry(c.entryId), c.entryId);
  const detail = `the interaction check cleared ${who}: it passes alone, and on top of ${below} it passed too when tested again (test run ${c.runId}); a flaky run had blamed it, so the batch's pull requests are tested again`;
  for (const run of bisectionRuns(world, rootId)) world.cancelRun(run, 'bisection_required', detail);
  for (const e of membersOf(world, rootId)) world.restart(e, 'bisection_test_run_passed', detail, c.runId);
}

/** Fails a culprit; one the interaction check cleared alone fails naming the member it fails with. */
function condemn(world: World, e: Entry, c: Culprit): void {
  if (!c.interaction) {
    const alone = world.run(c.runId)?.interactionOf === e.id ? ", and it fails alone on the batch's base too" : '';
    return world.transition(e, 'failed', c.reason, `bisection isolated it${alone}: test run ${c.runId} failed`, { testRunId: c.runId });
  }
  const sibling = world.entry(c.interaction.withEntryId);
  const detail = `it passes alone (test run ${c.interaction.aloneRunId}) and fails together with ${prLabel(sibling, c.interaction.withEntryId)} (test run ${c.runId})`;
  world.transition(e, 'failed', c.reason, detail, {
    testRunId: c.runId,
    set: {
      interaction: {
        withEntryId: c.interaction.withEntryId,
        withPrNumber: sibling?.prNumber ?? null,
        aloneRunId: c.interaction.aloneRunId,
        togetherRunId: c.runId,
      },
    },
  });
}

function checkWords(world: World, s: Suspect): string {
  const below = s.probe.base.map((id) => prLabel(world.entry(id), id)).join(', ');
  const blamed = s.below.map((id) => prLabel(world.entry(id), id)).join(', ');
  const next = below ? `testing it on the batch's base with ${below}` : "testing it alone on the batch's base";
  return `it failed on top of ${blamed} (test run ${s.blamedBy}); ${next}`;
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
      if (!existing.has(probeKey(world, probe))) out.push({ root: view.root, probe });
    }
  }
  return out;
}
