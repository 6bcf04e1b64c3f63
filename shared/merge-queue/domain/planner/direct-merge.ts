// directMergeMode `always` (merge-queue-behaviour §1.14, transition-table row 2): a ready pull
// request based on the target's tip, with nothing ahead of it (in parallel mode: nothing in its
// lane) and its own required statuses passing, merges without a test run.
import { buildDependencies, targetsOf } from './dependencies.js';
import { readyForAdmission } from './admission.js';
import type { Line } from './lineup.js';
import { compareEntries } from './order-key.js';
import type { World } from './world.js';
import { mergeHold } from './merge-windows.js';

/** Emits at most one direct merge; returns the merged entry's id. */
export function planDirectMerge(world: World, line: Line): string | null {
  const q = world.queue;
  if (q.directMergeMode !== 'always' || q.state !== 'running' || world.head === null) return null;
  const deps = buildDependencies(world, line.entries);
  const candidates = [...world.entries.values()]
    .filter((e) => (e.state === 'not_ready' && readyForAdmission(e)) || (e.state === 'pending' && !line.train.has(e.id)))
    .sort(compareEntries);
  for (const e of candidates) {
    const facts = world.directMerge[e.id];
    if (!facts || !facts.basedOnTargetTip || !facts.requiredStatusesPassing || mergeHold(world, e, true)) continue;
    const inLine = deps.index(e.id) >= 0;
    const ahead =
      q.mode === 'parallel'
        ? inLine
          ? deps.ancestors(e.id)
          : deps.ancestorsOfNewcomer(targetsOf(world, e.id))
        : line.entries.filter((x) => x.id !== e.id).map((x) => x.id);
    if (ahead.length > 0) continue;
    world.push({
      kind: 'merge',
      items: [{ entryId: e.id, prNumber: e.prNumber, prSha: e.prSha, expectedState: e.state, expectedVersion: e.version, verifiedByTestRun: null }],
      proofRunId: null,
      expectedTargetSha: world.head,
      verifyTree: false,
      reason: 'merge_graph_direct_merge',
      detail: 'based on the target tip with its own required statuses passing and nothing ahead',
    });
    return e.id;
  }
  return null;
}
