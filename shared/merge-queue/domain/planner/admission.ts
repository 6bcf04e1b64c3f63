// Entering and leaving the queue proper (transition-table rows 3, 4, 6): a ready entry is
// admitted only while the queue runs; a pending entry that stops being ready before it is tested
// (and before a run was built on top of it) goes back to not_ready; an entry that stays not
// ready past notReadyTimeoutHours is cancelled.
import type { Entry } from '../model.js';
import { isReady } from '../readiness.js';
import { inBisection } from './entry-states.js';
import type { Line } from './lineup.js';
import type { World } from './world.js';

/** Ready to be admitted: readiness holds, or an admin forced it past the mergeability wait. */
export function readyForAdmission(e: Entry): boolean {
  const r = e.readiness;
  if (isReady(r)) return true;
  return e.forceEnqueued && r.doesBaseBranchMatch && (!r.requiresImpactedTargets || r.hasImpactedTargets);
}

/** The first member of `e`'s stack that is not ready (e itself for a lone entry that is not), or null. */
function unreadyInUnit(world: World, e: Entry): Entry | null {
  return world.unitOf(e).find((m) => !readyForAdmission(m)) ?? null;
}

export function admitReadyEntries(world: World, skip: ReadonlySet<string>): void {
  if (world.queue.state !== 'running') return;
  for (const e of [...world.entries.values()]) {
    if (e.state === 'not_ready' && !skip.has(e.id) && unreadyInUnit(world, e) === null) {
      world.transition(e, 'pending', 'merge_item_now_ready', 'the pull request is ready to be tested');
    }
  }
}

export function demoteUnreadyEntries(world: World, line: Line): void {
  for (const e of line.entries) {
    if (e.state !== 'pending' || inBisection(e) || line.train.has(e.id)) continue;
    const waitingFor = unreadyInUnit(world, e);
    if (waitingFor === null) continue;
    const detail =
      waitingFor.id === e.id ? 'the pull request is no longer ready to be tested' : `waiting for PR #${waitingFor.prNumber} of its stack to be ready`;
    world.transition(e, 'not_ready', 'merge_item_no_longer_ready', detail);
  }
}

export function timeOutNotReadyEntries(world: World): void {
  const hours = world.queue.notReadyTimeoutHours;
  if (!(hours > 0)) return;
  for (const e of [...world.entries.values()]) {
    if (e.state !== 'not_ready' || readyForAdmission(e)) continue;
    const due = e.stateChangedAt.getTime() + hours * 3_600_000;
    if (due <= world.now) world.transition(e, 'cancelled', 'not_ready_timeout', `not ready for ${hours} hours`);
    else world.wakeAt(due);
  }
}
