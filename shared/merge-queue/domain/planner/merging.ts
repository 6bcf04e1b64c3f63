// Which entries can merge now (transition-table rows 9 and 14). A merge always completes the
// combination one passed run tested: the run's not-yet-merged base-then-tested entries are
// exactly the entries merged, in order — so the queue never merges an untested combination.
// Without optimistic merging every one of them must have passed itself; with it, entries still
// testing or in pending failure ride along (a later pass proves the whole prefix, §1.7). Entries
// sent back for a flaky re-test ride along whatever the setting: their failure was only tests
// known as flaky, and the passing run tested their changes with everything ahead. With
// `stackFailure: land_nothing` a merge takes each stack it touches whole.
import type { Entry, TestRun } from '../model.js';
import { underFlakyRetest } from './entry-states.js';
import type { Dependencies } from './dependencies.js';
import { evictedEntry, staleness } from './run-validity.js';
import { chainOf } from './run-outcome.js';
import type { Line } from './lineup.js';
import type { MergeAction } from './types.js';
import type { World } from './world.js';
import { mergeHold } from './merge-windows.js';

export interface MergeCandidate {
  items: Entry[];
  proof: TestRun;
}

export function mergeCandidates(world: World, line: Line, deps: Dependencies): MergeCandidate[] {
  const out: MergeCandidate[] = [];
  for (const run of world.runs.values()) {
    const candidate = candidateOf(world, run, line, deps);
    if (candidate) out.push(candidate);
  }
  return out;
}

function candidateOf(world: World, run: TestRun, line: Line, deps: Dependencies): MergeCandidate | null {
  if (run.status !== 'succeeded') return null;
  const chain = chainOf(run);
  if (chain.some((id) => evictedEntry(world, id, 'ahead') !== null) || staleness(world, run)) return null;
  const items = chain.map((id) => world.entry(id)!).filter((e) => e.state !== 'merged');
  if (items.length === 0) return null;
  const optimistic = world.queue.canOptimisticallyMerge;
  const own = new Set(run.entryIds);
  for (const e of items) {
    // The run's own entries must still hold it: an older pass of theirs proves nothing now.
    if (own.has(e.id) && e.currentRunId !== run.id) return null;
    const passed = e.state === 'tests_passed';
    const ridesAlong = !own.has(e.id) && ((optimistic && (e.state === 'testing' || e.state === 'pending_failure')) || underFlakyRetest(e));
    if (!passed && !ridesAlong) return null;
  }
  if (world.queue.stackFailure === 'land_nothing' && !wholeStacks(world, items)) return null;
  // A schedule that keeps tested pull requests for the window holds the whole merge until it opens for each.
  const holds = items.map((e) => mergeHold(world, e, false));
  if (holds.some((h) => h !== null)) {
    for (const h of holds) if (h?.until != null) world.wakeAt(h.until);
    return null;
  }
  return inMergeOrder(world, items, line, deps) ? { items, proof: run } : null;
}

/** Every stack the items touch is in them whole (`stackFailure: land_nothing`: a bisection's proven prefix waits for the rest). */
function wholeStacks(world: World, items: readonly Entry[]): boolean {
  const ids = new Set(items.map((e) => e.id));
  return items.every((e) => !e.stack || world.unitOf(e).every((m) => ids.has(m.id)));
}

/** The items are the head of the line (single mode) or close over their ancestors (parallel). */
function inMergeOrder(world: World, items: Entry[], line: Line, deps: Dependencies): boolean {
  if (world.queue.mode !== 'parallel') return items.every((e, i) => line.entries[i]?.id === e.id);
  const ids = new Set(items.map((e) => e.id));
  for (let i = 1; i < items.length; i++) if (deps.index(items[i - 1]!.id) > deps.index(items[i]!.id)) return false;
  return items.every((e) => deps.index(e.id) >= 0 && deps.ancestors(e.id).every((a) => ids.has(a)));
}

/** Single mode: the longest merge; parallel: the one reaching furthest forward in the line. */
export function bestCandidate(world: World, candidates: MergeCandidate[], deps: Dependencies): MergeCandidate | null {
  let best: MergeCandidate | null = null;
  for (const c of candidates) {
    if (!best) {
      best = c;
      continue;
    }
    const first = deps.index(c.items[0]!.id) - deps.index(best.items[0]!.id);
    const better = world.queue.mode === 'parallel' ? first < 0 || (first === 0 && c.items.length > best.items.length) : c.items.length > best.items.length;
    if (better) best = c;
  }
  return best;
}

export function mergeAction(world: World, c: MergeCandidate): MergeAction {
  return {
    kind: 'merge',
    items: c.items.map((e) => {
      const own = world.run(e.currentRunId);
      return {
        entryId: e.id,
        prNumber: e.prNumber,
        prSha: e.prSha,
        expectedState: e.state,
        expectedVersion: e.version,
        verifiedByTestRun: own && own.status === 'succeeded' ? own.id : c.proof.id,
      };
    }),
    proofRunId: c.proof.id,
    expectedTargetSha: world.head!,
    verifyTree: world.queue.mode !== 'parallel',
    reason: 'merge_graph_merge',
    detail: `${c.items.map((e) => `#${e.prNumber}`).join(', ')} verified by test run ${c.proof.id}`,
  };
}

/** Emits the best merge, if any. The target moves with it, so one merge per pass. */
export function planMerge(world: World, line: Line, deps: Dependencies): boolean {
  if (world.queue.state === 'paused' || world.head === null) return false;
  const best = bestCandidate(world, mergeCandidates(world, line, deps), deps);
  if (!best) return false;
  world.push(mergeAction(world, best));
  return true;
}
