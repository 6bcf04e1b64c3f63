// The impacted targets getMergeQueueTestingDetails reports for a test run (spec §2.7,
// merge-queue-behaviour §1.2): `impactedTargets` is the union over the branch (the predicted
// base's entries and the tested ones), `impactedTargetsForTestedPrs` the union over the tested
// entries only. Both are present only when targets were uploaded for some entry they cover.
// An entry without an upload counts as `ALL`, as it does for the planner; a union that holds
// `ALL` is reported as ["ALL"] (the wire has no other way to say "everything").
import type { ImpactedTargetSet } from './planner/types.js';

export interface RunImpactedTargets {
  impactedTargets?: string[];
  impactedTargetsForTestedPrs?: string[];
}

/** `targetsOf` gives the upload for an entry's tested head, or null when none was uploaded. */
export function runImpactedTargets(
  baseIds: readonly string[],
  testedIds: readonly string[],
  targetsOf: (entryId: string) => ImpactedTargetSet | null,
): RunImpactedTargets {
  const out: RunImpactedTargets = {};
  const branch = union([...baseIds, ...testedIds], targetsOf);
  if (branch) out.impactedTargets = branch;
  const tested = union(testedIds, targetsOf);
  if (tested) out.impactedTargetsForTestedPrs = tested;
  return out;
}

function union(ids: readonly string[], targetsOf: (entryId: string) => ImpactedTargetSet | null): string[] | null {
  const uploads = ids.map(targetsOf);
  if (uploads.every((t) => t === null)) return null;
  if (uploads.some((t) => t === null || t === 'ALL')) return ['ALL'];
  // First appearance in branch order (base first): the order the changes were stacked in.
  const all = new Set<string>();
  for (const t of uploads) for (const target of t as readonly string[]) all.add(target);
  return [...all];
}
