// Urgent interrupts (merge-queue-behaviour §1.12, transition-table row 17): when an urgent entry
// is ready and no slot is free, the lowest-priority running group — the earliest of them in line
// on a tie, so the urgent entry gets ahead of it — is cancelled together with every group tested
// on top of it, and they restart behind the urgent entry (they rejoin the line as ordinary
// pending entries, which sort after priority 0). Nothing else interrupts a running test.
import type { Entry, TestRun } from '../model.js';
import type { Dependencies } from './dependencies.js';
import { prLabel } from './entry-states.js';
import { holdersOf } from './main-groups.js';
import { chainOf } from './run-outcome.js';
import type { World } from './world.js';

interface RunningGroup {
  run: TestRun;
  holders: Entry[];
  priority: number;
  position: number;
}

export function preemptFor(world: World, deps: Dependencies, urgent: readonly Entry[]): boolean {
  const running: RunningGroup[] = [];
  for (const run of world.runs.values()) {
    if (run.kind !== 'main' || run.status !== 'in_progress') continue;
    const holders = holdersOf(world, run);
    if (holders.length === 0) continue;
    running.push({
      run,
      holders,
      priority: Math.min(...holders.map((e) => e.priorityValue)),
      position: Math.min(...holders.map((e) => deps.index(e.id))),
    });
  }
  const victim = running.filter((g) => g.priority > 0).sort((a, b) => b.priority - a.priority || a.position - b.position)[0];
  if (!victim) return false;
  const detail = `urgent ${prLabel(urgent[0], '')} takes its place`;
  const victimIds = new Set(victim.holders.map((e) => e.id));
  const interrupt = (run: TestRun, holders: Entry[]): void => {
    world.cancelRun(run, 'skip_the_line_interrupted', detail);
    for (const e of holders) world.restart(e, 'skip_the_line_interrupted', detail, run.id);
  };
  const onTop = [...world.runs.values()].filter((run) => run.kind === 'main' && run.id !== victim.run.id && chainOf(run).some((id) => victimIds.has(id)));
  interrupt(victim.run, victim.holders);
  for (const run of onTop) {
    const holders = holdersOf(world, run);
    if (holders.length > 0) interrupt(run, holders);
  }
  return true;
}
