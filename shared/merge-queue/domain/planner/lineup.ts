// The order of the admitted entries ("the line"). Entries that hold a place in the train — they
// are being tested, or a live run was built on top of them — keep the order their runs were
// built in; everything else follows in priority-then-admission order. So a later, higher-priority
// entry goes ahead of every entry not yet testing, but never reorders a run already built
// (merge-queue-behaviour §1.12: only urgent interrupts, through the preemption rule). The members
// of a stack waiting to be tested stand together, in stack order, where the first of them stands.
import type { Entry } from '../model.js';
import { compareEntries } from './order-key.js';
import { chainOf } from './run-outcome.js';
import { inBisection, isAdmitted, isInFlight } from './entry-states.js';
import type { World } from './world.js';
import { keepStacksTogether } from './stacks.js';
import { interactionSuspects } from './bisection.js';
import { startHold } from './merge-windows.js';

export interface Line {
  /** Admitted entries in line order. */
  entries: Entry[];
  /** Ids of the entries that hold a place in the train. */
  train: ReadonlySet<string>;
}

export function computeLineup(world: World): Line {
  // A suspect under an interaction check will not merge from this line, whatever its check finds.
  const suspects = interactionSuspects(world);
  const admitted = [...world.entries.values()].filter((e) => isAdmitted(e) && !suspects.has(e.id));
  const admittedIds = new Set(admitted.map((e) => e.id));
  const liveRunIds = new Set<string>();
  for (const e of admitted) {
    if (e.currentRunId && world.runs.has(e.currentRunId)) liveRunIds.add(e.currentRunId);
    if (e.bisectionOf && world.runs.has(e.bisectionOf)) liveRunIds.add(e.bisectionOf);
  }
  const train = new Set<string>(admitted.filter((e) => isInFlight(e) || inBisection(e)).map((e) => e.id));
  const after = new Map<string, Set<string>>();
  const indegree = new Map<string, number>();
  for (const runId of [...liveRunIds].sort()) {
    const run = world.runs.get(runId);
    if (!run) continue;
    const chain = chainOf(run).filter((id) => admittedIds.has(id));
    chain.forEach((id) => train.add(id));
    for (let i = 1; i < chain.length; i++) {
      const from = chain[i - 1]!;
      const to = chain[i]!;
      const next = after.get(from) ?? new Set<string>();
      if (!next.has(to)) {
        next.add(to);
        after.set(from, next);
        indegree.set(to, (indegree.get(to) ?? 0) + 1);
      }
    }
  }
  const trainEntries = admitted.filter((e) => train.has(e.id));
  // A pull request waiting for a merge window stands out of the line until it may start.
  const waiting = admitted.filter((e) => !train.has(e.id) && !(e.state === 'pending' && startHold(world, e) !== null));
  const rest = keepStacksTogether(waiting.sort(compareEntries));
  return { entries: [...topologicalOrder(trainEntries, after, indegree), ...rest], train };
}

/** Kahn's algorithm, always taking the smallest queue key among the entries free to go next. */
function topologicalOrder(nodes: Entry[], after: Map<string, Set<string>>, indegree: Map<string, number>): Entry[] {
  const byId = new Map(nodes.map((e) => [e.id, e]));
  const remaining = new Map(nodes.map((e) => [e.id, indegree.get(e.id) ?? 0]));
  const ready: Entry[] = nodes.filter((e) => remaining.get(e.id) === 0).sort(compareEntries);
  const out: Entry[] = [];
  const done = new Set<string>();
  while (out.length < nodes.length) {
    // A cycle cannot come from consistent runs; if stale runs disagree, break it by queue key.
    const next = ready.shift() ?? [...byId.values()].filter((e) => !done.has(e.id)).sort(compareEntries)[0]!;
    if (done.has(next.id)) continue;
    done.add(next.id);
    out.push(next);
    for (const to of after.get(next.id) ?? []) {
      const left = (remaining.get(to) ?? 0) - 1;
      remaining.set(to, left);
      const target = byId.get(to);
      if (left === 0 && target && !done.has(target.id)) insertSorted(ready, target);
    }
  }
  return out;
}

function insertSorted(list: Entry[], e: Entry): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareEntries(list[mid]!, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, e);
}
