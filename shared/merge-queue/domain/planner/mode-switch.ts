// switching_modes ends once no work is in flight (merge-queue-behaviour §1.2, §1.17): no run in
// progress, no entry testing, passed-but-unmerged, in pending failure or bisecting, and nothing
// else for this pass to do. Entries still pending are then tested under the new mode.
import { inBisection, isInFlight } from './entry-states.js';
import type { World } from './world.js';

export function completeModeSwitch(world: World): void {
  const q = world.queue;
  if (q.state !== 'switching_modes' || world.actionCount() > 0) return;
  for (const r of world.runs.values()) if (r.status === 'in_progress') return;
  for (const e of world.entries.values()) if (isInFlight(e) || (inBisection(e) && e.state === 'pending')) return;
  world.push({ kind: 'complete_mode_switch', queueId: q.id, expectedQueueVersion: q.version, mode: q.pendingMode ?? q.mode });
}
