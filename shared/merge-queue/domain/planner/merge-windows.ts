// Merge windows in the planner (docs/merge-windows.md). A pull request waiting to be tested
// starts only while the queue is open for it and stays open long enough for a run to finish (the
// ETA's estimate of a run); until then it stands out of the line, so pull requests the closure
// does not hold (another target, an exception priority) go past it, and when the window reopens
// the waiting ones go in their queue order. What is already testing finishes; whether it may
// merge inside the closure is the schedule's `inFlightAtFreeze`. A direct merge needs the window
// open.
import type { Entry } from '../model.js';
import { describeClosure, entryScope, windowHold, type WindowHold, type WindowScope } from '../merge-schedule.js';
import type { World } from './world.js';

const scopeOf = (world: World, e: Entry): WindowScope => entryScope(e, world.impactedTargets[e.id] ?? null, world.changedPaths[e.id] ?? null);

/** Holds decided in a pass, by entry id (phases ask several times). */
const startHolds = new WeakMap<World, Map<string, WindowHold | null>>();

/** Why `e` may not start a run now, and until when; null when it may. */
export function startHold(world: World, e: Entry): WindowHold | null {
  const calendar = world.calendar;
  if (!calendar) return null;
  let holds = startHolds.get(world);
  if (!holds) startHolds.set(world, (holds = new Map()));
  const known = holds.get(e.id);
  if (known !== undefined) return known;
  const hold = windowHold(calendar, scopeOf(world, e), world.now, world.runEstimateMs);
  holds.set(e.id, hold);
  return hold;
}

/** The hold on merging `e` now: the window is closed for it and the schedule keeps tested pull requests for the window. */
export function mergeHold(world: World, e: Entry, direct: boolean): WindowHold | null {
  const calendar = world.calendar;
  if (!calendar || (!direct && calendar.schedule.inFlightAtFreeze === 'merge')) return null;
  const state = calendar.stateAt(scopeOf(world, e), new Date(world.now));
  if (state.open) return null;
  return { until: state.opensAt?.getTime() ?? null, detail: describeClosure(state.closure) };
}

/**
 * Pending entries waiting for a window: the planner wakes when the first may start, and each
 * gains one timeline note per wait (`waiting_for_merge_window`).
 */
export function noteWindowWaits(world: World, train: ReadonlySet<string>): void {
  if (!world.calendar || (world.queue.state !== 'running' && world.queue.state !== 'draining')) return;
  for (const e of [...world.entries.values()]) {
    if (e.state !== 'pending' || train.has(e.id) || e.bisectionOf) continue;
    const hold = startHold(world, e);
    if (!hold) continue;
    if (hold.until !== null) world.wakeAt(hold.until);
    if (e.history.at(-1)?.reason !== 'waiting_for_merge_window') world.note(e, 'waiting_for_merge_window', hold.detail);
  }
}
