// The v2 merge graph: a line in single mode; in parallel mode edges between overlapping impacted
// targets, transitively reduced (an edge a path already implies is left out).
import { expect } from 'chai';
import { mergeGraphEdges } from '../../../shared/merge-queue/domain/merge-graph.js';
import { entry } from '../../../shared/merge-queue/simulation/builders.js';
import type { Entry } from '../../../shared/merge-queue/domain/model.js';
import type { ImpactedTargetSet } from '../../../shared/merge-queue/domain/planner/types.js';

const edgesOf = (mode: 'single' | 'parallel', targets: Record<number, ImpactedTargetSet>) => {
  const line = Object.keys(targets).map((n) => entry(Number(n)));
  return mergeGraphEdges(mode, line, (e: Entry) => targets[e.prNumber] ?? 'ALL').map(({ from, to }) => `${from.prNumber}→${to.prNumber}`);
};

describe('merge graph', () => {
  it('is the line in single mode, whatever the targets', () => {
    expect(edgesOf('single', { 1: ['a'], 2: ['b'], 3: [] })).to.deep.equal(['1→2', '2→3']);
  });

  it('connects overlapping targets in parallel mode and leaves out what a path implies', () => {
    // 1 and 2 share a; 3 shares a with both but is reached through 2; 4 touches only b.
    expect(edgesOf('parallel', { 1: ['a'], 2: ['a', 'c'], 3: ['a'], 4: ['b'] })).to.deep.equal(['1→2', '2→3']);
    // 3 overlaps 1 (x) and 2 (y), which do not overlap each other: both edges stay.
    expect(edgesOf('parallel', { 1: ['x'], 2: ['y'], 3: ['x', 'y'] })).to.deep.equal(['1→3', '2→3']);
  });

  it('treats ALL as overlapping every non-empty set, and an empty set as overlapping nothing', () => {
    expect(edgesOf('parallel', { 1: ['a'], 2: 'ALL', 3: [], 4: ['b'] })).to.deep.equal(['1→2', '2→4']);
  });
});
