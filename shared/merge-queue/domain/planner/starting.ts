// Starting test runs (transition-table row 7). Main runs: groups start in line order while a
// `concurrency` slot is free, each on its predicted base — the target head plus every entry
// ahead of it (single mode) or its transitive ancestors (parallel mode) that is not failed or
// cancelled. A group never starts before a group ahead of it that it depends on, and nothing
// depending on an unresolved bisection starts (its outcome is about to change). Bisection runs
// use their own `bisectionConcurrency` pool.
import type { Entry } from '../model.js';
import { activeRoots, probesToStart } from './bisection.js';
import { formGroup } from './batching.js';
import { buildDependencies, type Dependencies } from './dependencies.js';
import { inBisection, isAdmitted, isInFlight } from './entry-states.js';
import { computeLineup } from './lineup.js';
import { fail } from './main-groups.js';
import { preemptFor } from './preemption.js';
import type { PullRequestRef, StartRunAction } from './types.js';
import type { World } from './world.js';
import { isUrgentPriority } from '../priority.js';

export function startRuns(world: World): void {
  const state = world.queue.state;
  if (state === 'paused' || world.head === null) return;
  startBisectionRuns(world);
  startMainRuns(world, true);
}

function inProgress(world: World, kind: 'main' | 'bisection'): number {
  let n = 0;
  for (const r of world.runs.values()) if (r.kind === kind && r.status === 'in_progress') n++;
  return n + world.startedRuns[kind];
}

const ref = (e: Entry): PullRequestRef => ({ entryId: e.id, prNumber: e.prNumber, prSha: e.prSha });

/** What a run is built on besides the head: a bisection's run names its batch, a check's run also the suspect and the batch's target sha. */
interface RunOrigin {
  bisectionOf: string;
  check?: { interactionOf: string; targetSha: string };
}

function startAction(world: World, kind: 'main' | 'bisection', tested: Entry[], base: Entry[], origin: RunOrigin | null): StartRunAction {
  const prs = tested.map((e) => `#${e.prNumber}`).join(', ');
  const check = origin?.check;
  const on = check ? `the batch's base ${check.targetSha.slice(0, 12)}` : 'the target head';
  return {
    kind: 'start_run',
    runKind: kind,
    tested: tested.map((e) => ({ ...ref(e), expectedVersion: e.version })),
    base: base.map(ref),
    targetSha: check?.targetSha ?? world.head!,
    bisectionOf: origin?.bisectionOf ?? null,
    interactionOf: check?.interactionOf ?? null,
    requiredStatuses: [...world.requiredStatuses.contexts],
    requiredStatusesSource: world.requiredStatuses.source,
    timeoutMinutes: Math.max(0, world.queue.testingTimeoutMinutes),
    reason: 'test_run_started',
    detail:
      (check ? 'interaction check: ' : '') +
      (base.length > 0 ? `testing ${prs} on ${on} with ${base.map((e) => `#${e.prNumber}`).join(', ')}` : `testing ${prs} on ${on}`),
  };
}

/** Records a start; the entries count as under test for the rest of the pass. */
function start(world: World, kind: 'main' | 'bisection', tested: Entry[], base: Entry[], origin: RunOrigin | null): void {
  const { contexts, configError } = world.requiredStatuses;
  if (configError) {
    for (const e of tested) fail(world, e, 'start_test_run_config_parsing_failure', configError, null);
    return;
  }
  if (contexts.length === 0) {
    for (const e of tested) fail(world, e, 'start_test_run_no_required_statuses', 'no required statuses are configured for the queue', null);
    return;
  }
  world.push(startAction(world, kind, tested, base, origin));
  world.startedRuns[kind] += 1;
  for (const e of tested) world.starting.add(e.id);
}

function startBisectionRuns(world: World): void {
  if (activeRoots(world).length === 0) return;
  const cap = Math.max(1, world.queue.bisectionConcurrency);
  for (const { root, probe } of probesToStart(world)) {
    if (inProgress(world, 'bisection') >= cap) return;
    const tested = probe.tested.map((id) => world.entry(id));
    if (!tested.every((e): e is Entry => e !== undefined && e.state === 'pending' && e.bisectionOf === root.id && !world.starting.has(e.id))) continue;
    // A check's run is built on the batch's own base: members that merged since are stacked again.
    const check = probe.interactionOf ? { interactionOf: probe.interactionOf, targetSha: root.targetSha } : undefined;
    const base = [...root.baseEntryIds, ...probe.base]
      .map((id) => world.entry(id))
      .filter((e): e is Entry => e !== undefined && (check !== undefined || isAdmitted(e)));
    start(world, 'bisection', tested, base, { bisectionOf: root.id, ...(check ? { check } : {}) });
  }
}

function startMainRuns(world: World, mayPreempt: boolean): void {
  const state = world.queue.state;
  const allowNew = state === 'running' || state === 'draining';
  // While switching modes only entries holding a place under runs already built may start, so
  // that work in flight can finish; everything else waits for the new mode.
  if (!allowNew && state !== 'switching_modes') return;
  const line = computeLineup(world);
  const deps = buildDependencies(world, line.entries);
  const blocked = new Set<string>();
  const grouped = new Set<string>();
  const settled = (id: string): boolean => {
    const e = world.entry(id);
    if (!e || !isAdmitted(e)) return true;
    // An unproven bisection member holds back what depends on it, even while being tested.
    if (inBisection(e)) return e.state === 'tests_passed';
    return world.starting.has(id) || grouped.has(id) || isInFlight(e);
  };
  const eligible = (e: Entry): boolean => e.state === 'pending' && !inBisection(e) && !settled(e.id) && (allowNew || line.train.has(e.id));
  let urgent: Entry[] | null = null;
  for (let i = 0; i < line.entries.length; i++) {
    const e = line.entries[i]!;
    if (settled(e.id)) continue;
    if (inBisection(e) || !eligible(e) || deps.ancestors(e.id).some((a) => blocked.has(a)) || !wholeUnitReady(world, line.entries, i, eligible)) {
      blocked.add(e.id);
      continue;
    }
    const group = formGroup(world, i, { line: line.entries, deps, eligible, settled });
    const holdBack = (): void => group.members.forEach((m) => blocked.add(m.id));
    if (group.waitUntil !== null) {
      world.wakeAt(group.waitUntil);
      holdBack();
      continue;
    }
    if (inProgress(world, 'main') >= world.queue.concurrency) {
      if (!urgent && group.members.some((m) => isUrgentPriority(m.priorityValue))) urgent = group.members;
      holdBack();
      continue;
    }
    if (laneFull(world, group.members)) {
      holdBack();
      continue;
    }
    group.members.forEach((m) => grouped.add(m.id));
    start(world, 'main', group.members, predictedBase(world, deps, group.members), null);
  }
  if (urgent && mayPreempt && allowNew && preemptFor(world, deps, urgent)) startMainRuns(world, false);
}

/** The capped lanes a group's members are in (a pull request in every lane, `ALL`, counts against none). */
function cappedLanes(world: World, entryIds: readonly string[]): Set<string> {
  const lanes = new Set<string>();
  for (const id of entryIds) {
    const targets = world.impactedTargets[id];
    if (targets === undefined || targets === 'ALL') continue;
    for (const t of targets) if (world.laneCaps[t] !== undefined) lanes.add(t);
  }
  return lanes;
}

/** Whether a lane of the group already has as many main runs going (or starting in this pass) as its cap allows. */
function laneFull(world: World, members: readonly Entry[]): boolean {
  const mine = cappedLanes(
    world,
    members.map((m) => m.id),
  );
  if (mine.size === 0) return false;
  const going = new Map<string, number>();
  const count = (entryIds: readonly string[]) => {
    for (const lane of cappedLanes(world, entryIds)) going.set(lane, (going.get(lane) ?? 0) + 1);
  };
  for (const r of world.runs.values()) if (r.kind === 'main' && r.status === 'in_progress') count(r.entryIds);
  for (const a of world.actions) if (a.kind === 'start_run' && a.runKind === 'main') count(a.tested.map((t) => t.entryId));
  return [...mine].some((lane) => (going.get(lane) ?? 0) >= world.laneCaps[lane]!);
}

/**
 * A stack starts only whole: every active member is eligible and stands in line from `at` on
 * (a member still not ready, or under test elsewhere, holds the unit back).
 */
function wholeUnitReady(world: World, line: readonly Entry[], at: number, eligible: (e: Entry) => boolean): boolean {
  const seed = line[at]!;
  if (!seed.stack) return true;
  const unit = world.unitOf(seed);
  return unit[0]!.id === seed.id && unit.every((m, k) => line[at + k]?.id === m.id && eligible(m));
}

/** Ancestors of the group's members, minus the members, that are still in the queue, in line order. */
function predictedBase(world: World, deps: Dependencies, members: Entry[]): Entry[] {
  const ids = new Set(members.map((m) => m.id));
  const base = new Set<string>();
  for (const m of members) for (const a of deps.ancestors(m.id)) if (!ids.has(a)) base.add(a);
  return [...base]
    .map((id) => world.entry(id))
    .filter((e): e is Entry => e !== undefined && isAdmitted(e))
    .sort((a, b) => deps.index(a.id) - deps.index(b.id));
}
