// The parallel-mode dependency graph (merge-queue-behaviour §1.2) against a direct reading of
// the rule: pairwise overlap of target sets, closed transitively over earlier entries. The
// planner indexes entries by target instead of comparing lists pairwise (bench-planner showed
// the pairwise comparison dominating a pass over 1,000 entries); this checks both agree on
// random queues, across bitmap word boundaries and with shared, ALL and empty target sets.
import { expect } from 'chai';
import { buildDependencies, overlaps } from '../../../../shared/merge-queue/domain/planner/dependencies.js';
import { computeLineup } from '../../../../shared/merge-queue/domain/planner/lineup.js';
import { World } from '../../../../shared/merge-queue/domain/planner/world.js';
import type { ImpactedTargetSet } from '../../../../shared/merge-queue/domain/planner/types.js';
import { entry, input } from '../../../../shared/merge-queue/simulation/builders.js';
import { rng } from '../../../../shared/platform/seeded-random.js';

function reference(ids: string[], targets: Record<string, ImpactedTargetSet>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const anc: Set<number>[] = [];
  for (let i = 0; i < ids.length; i++) {
    const mine = new Set<number>();
    for (let j = 0; j < i; j++) {
      if (overlaps(targets[ids[i]!] ?? 'ALL', targets[ids[j]!] ?? 'ALL')) {
        mine.add(j);
        for (const k of anc[j]!) mine.add(k);
      }
    }
    anc.push(mine);
    out.set(
      ids[i]!,
      [...mine].sort((a, b) => a - b).map((j) => ids[j]!),
    );
  }
  return out;
}

describe('planner: dependency graph (parallel mode)', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`matches the pairwise definition on a random queue (seed ${seed})`, () => {
      const random = rng(seed);
      const n = 1 + Math.floor(random() * 140);
      const pool = 1 + Math.floor(random() * 40);
      const targets: Record<string, ImpactedTargetSet> = {};
      const entries = [];
      for (let i = 1; i <= n; i++) {
        entries.push(entry(i));
        const roll = random();
        // Missing targets count as ALL; keep a few missing, ALL and empty.
        if (roll < 0.03) continue;
        targets[`e${i}`] =
          roll < 0.08 ? 'ALL' : roll < 0.15 ? [] : Array.from({ length: 1 + Math.floor(random() * 4) }, () => `t${Math.floor(random() * pool)}`);
      }
      const world = new World(input({ queue: { mode: 'parallel' }, entries, targets }));
      const line = computeLineup(world).entries.map((e) => e.id);
      const deps = buildDependencies(world, computeLineup(world).entries);
      const expected = reference(line, targets);
      for (const id of line) {
        expect(deps.ancestors(id), id).to.deep.equal(expected.get(id));
        for (const a of line) expect(deps.dependsOn(id, a), `${id} on ${a}`).to.equal(expected.get(id)!.includes(a));
      }
      const newcomer: ImpactedTargetSet = [`t${Math.floor(random() * pool)}`];
      expect(deps.ancestorsOfNewcomer(newcomer)).to.deep.equal(reference([...line, 'new'], { ...targets, new: newcomer }).get('new'));
      expect(deps.ancestorsOfNewcomer([])).to.deep.equal([]);
    });
  }

  it('a target shared by most of a long queue (the bitmap form of the index) links them all', () => {
    const n = 300;
    const entries = Array.from({ length: n }, (_, i) => entry(i + 1));
    const targets: Record<string, ImpactedTargetSet> = {};
    for (let i = 1; i <= n; i++) targets[`e${i}`] = i % 3 === 0 ? [`only-${i}`] : ['shared', `only-${i}`];
    const world = new World(input({ queue: { mode: 'parallel' }, entries, targets }));
    const line = computeLineup(world).entries;
    const deps = buildDependencies(world, line);
    const expected = reference(
      line.map((e) => e.id),
      targets,
    );
    for (const e of line) expect(deps.ancestors(e.id)).to.deep.equal(expected.get(e.id));
    expect(deps.ancestors('e299')).to.have.length(199);
  });
});
