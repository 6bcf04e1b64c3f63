// Whether a run still tests what the queue is about to merge. Two things invalidate it: an entry
// of its predicted base left the queue without merging through it, or the target branch moved
// in a way the queue's own merges do not explain (a push outside the queue).
import type { Reason, TestRun } from '../model.js';
import { mergedByQueue, prLabel } from './entry-states.js';
import { chainOf } from './run-outcome.js';
import type { World } from './world.js';

export interface Invalidity {
  reason: Reason;
  detail: string;
}

/** The first entry of the run's base that was evicted (failed, cancelled, merged elsewhere). */
export function evictedInBase(world: World, run: TestRun): Invalidity | null {
  for (const id of run.baseEntryIds) {
    const found = evictedEntry(world, id, 'ahead');
    if (found) return found;
  }
  return null;
}

/** Why the entry no longer belongs on top of the target branch, or null when it still does. */
export function evictedEntry(world: World, id: string, where: string): Invalidity | null {
  const e = world.entry(id);
  const label = prLabel(e, id);
  if (!e) return { reason: 'prerequisite_merge_item_cancelled', detail: `${label} ${where} left the queue` };
  switch (e.state) {
    case 'failed':
      return { reason: 'prerequisite_merge_item_failed', detail: `${label} ${where} failed` };
    case 'cancelled':
      return { reason: 'prerequisite_merge_item_cancelled', detail: `${label} ${where} was cancelled` };
    case 'not_ready':
      return { reason: 'prerequisite_merge_item_cancelled', detail: `${label} ${where} is no longer ready` };
    case 'merged':
      return mergedByQueue(e) ? null : { reason: 'prerequisite_merge_item_manually_merged', detail: `${label} ${where} was merged outside the queue` };
    default:
      return null;
  }
}

/**
 * The entries the queue merged between `fromSha` and the current head, in merge order; null
 * when the head cannot be reached from `fromSha` through the queue's merges (moved outside).
 */
export function queueMergesSince(world: World, fromSha: string): string[] | null {
  if (world.head === null) return null;
  const walked: string[] = [];
  let sha = world.head;
  const seen = new Set<string>();
  while (sha !== fromSha) {
    const e = world.mergedByResultSha.get(sha);
    if (!e || !e.mergedOntoSha || seen.has(sha)) return null;
    seen.add(sha);
    walked.push(e.id);
    sha = e.mergedOntoSha;
  }
  return walked.reverse();
}

function movedDetail(world: World): string {
  return `the target branch moved to ${(world.head ?? 'nothing').slice(0, 12)} outside the queue`;
}

/**
 * A run is current when the head is its target sha plus the queue's merges of a prefix of its
 * base-then-tested entries (single mode: nothing else; parallel mode: of some of its entries,
 * in any order, and of other lanes' entries).
 */
export function staleness(world: World, run: TestRun): Invalidity | null {
  if (world.head === null) return null;
  const walked = queueMergesSince(world, run.targetSha);
  const stale: Invalidity = { reason: 'manual_push_to_target_branch', detail: movedDetail(world) };
  if (walked === null) return stale;
  const chain = chainOf(run);
  const inChain = new Set(chain);
  const mergedInChain = chain.filter((id) => world.entry(id)?.state === 'merged').length;
  if (world.queue.mode === 'parallel') {
    // Lanes merge independently: other lanes' merges may interleave, and within the run's own
    // chain independent entries may merge in either order; every merged entry of the chain
    // must have been merged by the queue since the run started.
    return walked.filter((id) => inChain.has(id)).length === mergedInChain ? null : stale;
  }
  for (let i = 0; i < walked.length; i++) if (chain[i] !== walked[i]) return stale;
  return mergedInChain === walked.length ? null : stale;
}

/**
 * A bisection root is current when the head is its target sha plus queue merges of its own
 * entries (innocents merge in an order that skips culprits, so no prefix rule here).
 */
export function rootStaleness(world: World, root: TestRun): Invalidity | null {
  if (world.head === null) return null;
  const walked = queueMergesSince(world, root.targetSha);
  const stale: Invalidity = { reason: 'manual_push_to_target_branch', detail: movedDetail(world) };
  if (walked === null) return stale;
  if (world.queue.mode === 'parallel') return null;
  const inChain = new Set(chainOf(root));
  return walked.every((id) => inChain.has(id)) ? null : stale;
}
