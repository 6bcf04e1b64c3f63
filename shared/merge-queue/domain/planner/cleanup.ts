// Test branches are deleted once their run has concluded and nothing depends on them: no entry
// still waits on the run (as its current run or the batch it bisects), and, for a passed run,
// none of its tested entries is still to merge (the run is the proof its merge is checked by).
import { isActive } from './entry-states.js';
import type { World } from './world.js';

export function deleteSpentBranches(world: World): void {
  const referenced = new Set<string>();
  for (const e of world.entries.values()) {
    if (!isActive(e)) continue;
    if (e.currentRunId) referenced.add(e.currentRunId);
    if (e.bisectionOf) referenced.add(e.bisectionOf);
  }
  for (const run of world.runs.values()) {
    if (run.status === 'in_progress' || run.branchDeleted || referenced.has(run.id)) continue;
    const stillProof =
      run.status === 'succeeded' &&
      run.entryIds.some((id) => {
        const e = world.entry(id);
        return e !== undefined && isActive(e);
      });
    if (!stillProof) world.push({ kind: 'delete_branch', runId: run.id, branch: run.branch });
  }
}
