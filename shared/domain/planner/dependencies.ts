// Who is tested on top of whom. Single mode is one line: an entry depends on everything ahead.
// Parallel mode builds a graph from impacted targets (merge-queue-behaviour §1.2): two entries
// depend on each other when their target sets intersect; `ALL` intersects every non-empty set;
// an empty set intersects nothing (not even `ALL`: "depends on nothing and nothing depends on
// it"). An entry's ancestors are the transitive closure over earlier entries in line order.
import type { Entry } from '../model.js';
import type { ImpactedTargetSet } from './types.js';
import type { World } from './world.js';

export interface Dependencies {
  /** Position of an entry in the line, -1 when absent. */
  index(id: string): number;
  /** The admitted entries ahead that this one depends on, transitively, in line order. */
  ancestors(id: string): string[];
  /** Whether `later` depends, transitively, on `earlier`. */
  dependsOn(later: string, earlier: string): boolean;
  /** The ancestors an entry not in the line would have if it joined at the end. */
  ancestorsOfNewcomer(targets: ImpactedTargetSet): string[];
}

type TargetSet = ReadonlySet<string> | 'ALL';

export function overlaps(a: ImpactedTargetSet, b: ImpactedTargetSet): boolean {
  return setsOverlap(toSet(a), toSet(b));
}

function toSet(t: ImpactedTargetSet): TargetSet {
  return t === 'ALL' ? 'ALL' : new Set(t);
}

function setsOverlap(a: TargetSet, b: TargetSet): boolean {
  if (a !== 'ALL' && a.size === 0) return false;
  if (b !== 'ALL' && b.size === 0) return false;
  if (a === 'ALL' || b === 'ALL') return true;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const t of small) if (large.has(t)) return true;
  return false;
}

export function targetsOf(world: World, id: string): ImpactedTargetSet {
  return world.impactedTargets[id] ?? 'ALL';
}

export function buildDependencies(world: World, line: readonly Entry[]): Dependencies {
  const ids = line.map((e) => e.id);
  const position = new Map(ids.map((id, i) => [id, i]));
  const index = (id: string): number => position.get(id) ?? -1;
  if (world.queue.mode !== 'parallel') {
    return {
      index,
      ancestors: (id) => ids.slice(0, Math.max(0, index(id))),
      dependsOn: (later, earlier) => index(earlier) >= 0 && index(earlier) < index(later),
      ancestorsOfNewcomer: () => [...ids],
    };
  }
  const sets = ids.map((id) => toSet(targetsOf(world, id)));
  const words = Math.ceil(ids.length / 32) || 1;
  const closure: Uint32Array[] = [];
  const has = (bits: Uint32Array, j: number): boolean => (bits[j >>> 5]! & (1 << (j & 31))) !== 0;
  const closureFor = (set: TargetSet, upTo: number): Uint32Array => {
    const bits = new Uint32Array(words);
    // Walking backwards, an ancestor already collected brings its own ancestors with it.
    for (let j = upTo - 1; j >= 0; j--) {
      if (has(bits, j) || !setsOverlap(set, sets[j]!)) continue;
      bits[j >>> 5] |= 1 << (j & 31);
      const theirs = closure[j]!;
      for (let w = 0; w < words; w++) bits[w] |= theirs[w]!;
    }
    return bits;
  };
  for (let i = 0; i < ids.length; i++) closure.push(closureFor(sets[i]!, i));
  const listOf = (bits: Uint32Array, upTo: number): string[] => {
    const out: string[] = [];
    for (let j = 0; j < upTo; j++) if (has(bits, j)) out.push(ids[j]!);
    return out;
  };
  return {
    index,
    ancestors: (id) => {
      const i = index(id);
      return i < 0 ? [] : listOf(closure[i]!, i);
    },
    dependsOn: (later, earlier) => {
      const i = index(later);
      const j = index(earlier);
      return i >= 0 && j >= 0 && j < i && has(closure[i]!, j);
    },
    ancestorsOfNewcomer: (targets) => listOf(closureFor(toSet(targets), ids.length), ids.length),
  };
}
