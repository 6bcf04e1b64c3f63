// plan(input) → actions: one planning pass over one queue. The phases run in a fixed order on a
// working copy; the first group repeats until it changes nothing, because one decision can
// enable another (a failure evicts an entry, which restarts the groups built on it, which lets
// a failed group behind them resolve, …).
import { admitReadyEntries, demoteUnreadyEntries, timeOutNotReadyEntries } from './admission.js';
import { advanceBisections, timeOutBisectionRuns } from './bisection.js';
import { deleteSpentBranches } from './cleanup.js';
import { buildDependencies } from './dependencies.js';
import { planDirectMerge } from './direct-merge.js';
import { computeLineup } from './lineup.js';
import { cancelOrphanRuns, reconcileMainGroups } from './main-groups.js';
import { planMerge } from './merging.js';
import { completeModeSwitch } from './mode-switch.js';
import { resolvePendingFailures } from './pending-failures.js';
import { startRuns } from './starting.js';
import { noteWindowWaits } from './merge-windows.js';
import { removeOrphanedStackMembers } from './stacks.js';
import type { PlanInput, PlanResult } from './types.js';
import { World } from './world.js';

export function plan(input: PlanInput): PlanResult {
  const world = new World(input);
  removeOrphanedStackMembers(world);
  settle(world);
  timeOutNotReadyEntries(world);
  demoteUnreadyEntries(world, computeLineup(world));
  const paused = world.queue.state === 'paused';
  let merged = false;
  const directlyMerged = new Set<string>();
  if (!paused) {
    const line = computeLineup(world);
    merged = planMerge(world, line, buildDependencies(world, line.entries));
    if (!merged) {
      const id = planDirectMerge(world, line);
      if (id) directlyMerged.add(id);
      merged = id !== null;
    }
  }
  admitReadyEntries(world, directlyMerged);
  // A merge moves the target: new runs are built on the new head in the next pass.
  if (!merged) startRuns(world);
  // The line is computed again only for a queue with a schedule: a pass without one pays nothing here.
  if (world.calendar) noteWindowWaits(world, computeLineup(world).train);
  completeModeSwitch(world);
  deleteSpentBranches(world);
  for (const run of world.runs.values()) {
    if (run.status === 'in_progress' && run.deadlineAt) world.wakeAt(run.deadlineAt.getTime());
  }
  return { actions: world.actions, wakeAt: world.nextWake() };
}

/** Consistency and resolution phases, repeated until a round decides nothing new. */
function settle(world: World): void {
  const limit = 4 * world.entries.size + 16;
  for (let round = 0; round < limit; round++) {
    const before = world.actionCount();
    reconcileMainGroups(world);
    timeOutBisectionRuns(world);
    if (world.queue.state !== 'paused') advanceBisections(world);
    cancelOrphanRuns(world);
    resolvePendingFailures(world);
    if (world.actionCount() === before) return;
  }
}
