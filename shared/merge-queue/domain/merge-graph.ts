// The merge graph of a queue's admitted entries, as the v2 API shows it: an edge from an earlier
// entry to a later one that is tested on top of it. In single mode that is a line; in parallel
// mode two entries are connected when their impacted targets overlap (the planner's rule,
// planner/dependencies.ts), and the graph is transitively reduced: an edge implied by a path
// through other entries is left out. It shows structure, not dispatch order.
import type { Entry, QueueMode } from './model.js';
import type { ImpactedTargetSet } from './planner/types.js';
import { overlaps } from './planner/dependencies.js';

export interface MergeGraphEdge {
  from: Entry;
  to: Entry;
}

/** `line` in queue order; `targetsOf` gives an entry's uploaded targets (none uploaded: every target, as the planner assumes). */
export function mergeGraphEdges(mode: QueueMode, line: readonly Entry[], targetsOf: (e: Entry) => ImpactedTargetSet): MergeGraphEdge[] {
  if (mode === 'single') return line.slice(1).map((to, i) => ({ from: line[i] as Entry, to }));
  const sets = line.map(targetsOf);
  const n = line.length;
  // reach[j] holds every i < j that j depends on, directly or through others.
  const reach: Set<number>[] = [];
  const direct: number[][] = [];
  for (let j = 0; j < n; j++) {
    const ancestors = new Set<number>();
    const parents: number[] = [];
    // Latest first: an overlap already reachable through a later parent is implied, not direct.
    for (let i = j - 1; i >= 0; i--) {
      if (!overlaps(sets[i] as ImpactedTargetSet, sets[j] as ImpactedTargetSet)) continue;
      if (!ancestors.has(i)) parents.push(i);
      ancestors.add(i);
      for (const a of reach[i] as Set<number>) ancestors.add(a);
    }
    reach.push(ancestors);
    direct.push(parents);
  }
  return direct.flatMap((parents, j) => parents.sort((a, b) => a - b).map((i) => ({ from: line[i] as Entry, to: line[j] as Entry })));
}
