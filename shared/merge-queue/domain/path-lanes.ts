// Lanes from paths (docs/lanes.md): in parallel mode a pull request needs impacted targets to be
// placed in the dependency graph; a repository that does not upload them can map path globs to
// lanes in `.trunk/trunk.yaml` instead, and the service computes each pull request's lanes from
// the files it changes. Barrier paths (a lockfile, the CI configuration) make a pull request
// conflict with every lane; so does a file no lane covers, or files that cannot be read — two
// changes are tested apart only when the configuration says they cannot interact.
import Type from 'typebox';
import { Value } from 'typebox/value';
import { globProblem, pathMatcher } from './path-globs.js';
import type { ImpactedTargetSet } from './planner/types.js';

const MAX_NAME = 100;
const glob = Type.String({ minLength: 1, maxLength: 256 });

export const PathLanesSchema = Type.Object(
  {
    areas: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: MAX_NAME, pattern: '^[A-Za-z0-9._-]+$' }),
          paths: Type.Array(glob, { minItems: 1, maxItems: 100 }),
          maxConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    barriers: Type.Optional(Type.Array(glob, { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export interface PathLanes {
  /** `maxConcurrency`: at most this many main runs of the lane at once (null: only the queue's concurrency). */
  areas: { name: string; paths: string[]; maxConcurrency: number | null }[];
  barriers: string[];
}

/** The impacted target a lane stands for: distinct from any uploaded target name. */
export const laneTarget = (name: string): string => `lane:${name}`;

export function readPathLanes(value: unknown): { ok: true; lanes: PathLanes } | { ok: false; problems: { path: string; message: string }[] } {
  if (!Value.Check(PathLanesSchema, value)) {
    const problems = Value.Errors(PathLanesSchema, value)
      .filter((e) => e.keyword !== 'boolean')
      .map((e) => ({ path: e.instancePath || '/', message: e.message }));
    return { ok: false, problems };
  }
  const lanes: PathLanes = {
    areas: value.areas.map((a) => ({ name: a.name, paths: [...a.paths], maxConcurrency: a.maxConcurrency ?? null })),
    barriers: [...(value.barriers ?? [])],
  };
  const problems: { path: string; message: string }[] = [];
  const names = new Set<string>();
  lanes.areas.forEach((a, i) => {
    if (names.has(a.name)) problems.push({ path: `/areas/${i}/name`, message: `"${a.name}" names another area too` });
    names.add(a.name);
    a.paths.forEach((g, j) => {
      const problem = globProblem(g);
      if (problem) problems.push({ path: `/areas/${i}/paths/${j}`, message: problem });
    });
  });
  lanes.barriers.forEach((g, j) => {
    const problem = globProblem(g);
    if (problem) problems.push({ path: `/barriers/${j}`, message: problem });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, lanes };
}

/** Each capped lane's cap, by its target name (PlanInput.laneCaps). */
export function laneCaps(lanes: PathLanes): Record<string, number> {
  return Object.fromEntries(lanes.areas.flatMap((a) => (a.maxConcurrency === null ? [] : [[laneTarget(a.name), a.maxConcurrency]])));
}

/**
 * A pull request's lanes from the files it changes: each area a file falls in; `ALL` when a file
 * is under a barrier or in no area, or the files are not known (null); none when it changes none.
 */
export function laneTargets(lanes: PathLanes, changedPaths: readonly string[] | null): ImpactedTargetSet {
  if (changedPaths === null) return 'ALL';
  const barrier = pathMatcher(lanes.barriers);
  const found = new Set<string>();
  for (const file of changedPaths) {
    if (barrier(file)) return 'ALL';
    const areas = lanes.areas.filter((a) => pathMatcher(a.paths)(file));
    if (areas.length === 0) return 'ALL';
    for (const a of areas) found.add(laneTarget(a.name));
  }
  return [...found].sort();
}
