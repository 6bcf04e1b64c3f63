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

/**
 * The dependency graph of a line. Phases of one pass ask for it several times, mostly for the
 * same line; it depends only on the line's order and the (fixed) targets, so the last one
 * built is reused while the line is unchanged.
 */
export function buildDependencies(world: World, line: readonly Entry[]): Dependencies {
  const ids = line.map((e) => e.id);
  const key = ids.join(',');
  const cached = lastBuilt.get(world);
  if (cached?.key === key) return cached.deps;
  const deps = computeDependencies(world, ids);
  lastBuilt.set(world, { key, deps });
  return deps;
}

/** The last graph built per pass (a pass's World), by the line it was built for. */
const lastBuilt = new WeakMap<World, { key: string; deps: Dependencies }>();

function computeDependencies(world: World, ids: string[]): Dependencies {
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
  // Lists are read as they are (a duplicate target costs nothing); no Set per entry.
  const sets = ids.map((id) => targetsOf(world, id));
  const words = Math.ceil(ids.length / 32) || 1;
  const closure: Uint32Array[] = [];
  const has = (bits: Uint32Array, j: number): boolean => (bits[j >>> 5]! & (1 << (j & 31))) !== 0;
  // The entries registered so far (those ahead of the one being placed), indexed by what they
  // touch, so an entry finds the ones it overlaps without comparing target lists pairwise
  // (quadratic in the queue and in the lists' lengths: 100,000-target lists are allowed).
  const nonEmpty = new Uint32Array(words);
  const everything = new Uint32Array(words);
  // A target most often belongs to one pull request: its holder is stored as a bare index,
  // and only a shared target gets an index object (a million targets, a million fewer objects).
  const byTarget = new Map<string, number | TargetIndex>();
  const overlapping = (set: ImpactedTargetSet): Uint32Array => {
    const bits = new Uint32Array(words);
    if (set === 'ALL') bits.set(nonEmpty);
    else if (set.length > 0) {
      bits.set(everything);
      for (const t of set) {
        const holders = byTarget.get(t);
        if (typeof holders === 'number') bits[holders >>> 5] |= 1 << (holders & 31);
        else holders?.orInto(bits);
      }
    }
    return bits;
  };
  const closureOf = (direct: Uint32Array): Uint32Array => {
    const bits = new Uint32Array(words);
    // Highest index first: an ancestor already collected brings its own ancestors with it.
    for (let w = words - 1; w >= 0; w--) {
      for (let left = direct[w]! & ~bits[w]!; left !== 0; left = direct[w]! & ~bits[w]!) {
        const b = 31 - Math.clz32(left);
        bits[w] |= 1 << b;
        const theirs = closure[w * 32 + b]!;
        for (let k = 0; k <= w; k++) bits[k] |= theirs[k]!;
      }
    }
    return bits;
  };
  for (let i = 0; i < ids.length; i++) {
    const set = sets[i]!;
    closure.push(closureOf(overlapping(set)));
    if (set !== 'ALL' && set.length === 0) continue;
    nonEmpty[i >>> 5] |= 1 << (i & 31);
    if (set === 'ALL') everything[i >>> 5] |= 1 << (i & 31);
    else {
      for (const t of set) {
        const holders = byTarget.get(t);
        if (holders === undefined) byTarget.set(t, i);
        else if (typeof holders === 'number') {
          if (holders === i) continue;
          const index = new TargetIndex(words);
          index.add(holders);
          index.add(i);
          byTarget.set(t, index);
        } else holders.add(i);
      }
    }
  }
  const listOf = (bits: Uint32Array, upTo: number): string[] => {
    const out: string[] = [];
    // Word by word, skipping empty words: most entries have few ancestors.
    for (let w = 0; w < words && w * 32 < upTo; w++) {
      for (let left = bits[w]!; left !== 0; left &= left - 1) {
        const j = w * 32 + 31 - Math.clz32(left & -left);
        if (j < upTo) out.push(ids[j]!);
      }
    }
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
    ancestorsOfNewcomer: (targets) => listOf(closureOf(overlapping(targets)), ids.length),
  };
}

/**
 * The entries that list one target: a short list while few do (most targets of a large
 * monorepo belong to one or two pull requests), a bitmap once more do, so that merging it into
 * an entry's overlaps never costs more than one pass over a bitmap.
 */
class TargetIndex {
  private list: number[] | null = [];
  private bits: Uint32Array | null = null;

  constructor(private readonly words: number) {}

  add(i: number): void {
    if (this.list) {
      this.list.push(i);
      if (this.list.length <= this.words) return;
      this.bits = new Uint32Array(this.words);
      for (const j of this.list) this.bits[j >>> 5] |= 1 << (j & 31);
      this.list = null;
      return;
    }
    this.bits![i >>> 5] |= 1 << (i & 31);
  }

  orInto(dst: Uint32Array): void {
    if (this.list) {
      for (const j of this.list) dst[j >>> 5] |= 1 << (j & 31);
      return;
    }
    const bits = this.bits!;
    for (let w = 0; w < bits.length; w++) dst[w] |= bits[w]!;
  }
}
