// Parallel mode (merge-queue-behaviour §1.2): a dependency graph from impacted targets; each
// entry is tested on the head plus its not-yet-merged transitive ancestors.
import { expect } from 'chai';
import { buildDependencies, overlaps } from '../../../../shared/merge-queue/domain/planner/dependencies.js';
import { computeLineup } from '../../../../shared/merge-queue/domain/planner/lineup.js';
import { World } from '../../../../shared/merge-queue/domain/planner/world.js';
import {
  HEAD,
  cancels,
  entry,
  failed,
  held,
  input,
  merged,
  mergeOf,
  moves,
  passed,
  planOf,
  queue,
  run,
  starts,
} from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running, states } from '../../../../shared/merge-queue/simulation/simulator.js';

const parallel = (over = {}) => ({ mode: 'parallel' as const, concurrency: 4, ...over });
// The four-PR example of the notes.
const fourPrs = { e1: ['frontend'], e2: ['backend'], e3: ['frontend', 'backend'], e4: ['docs'] };

describe('planner: parallel mode', () => {
  it('target sets: intersecting sets depend; ALL intersects every non-empty set; an empty set intersects nothing', () => {
    expect(overlaps(['a', 'b'], ['b'])).to.equal(true);
    expect(overlaps(['a'], ['b'])).to.equal(false);
    expect(overlaps('ALL', ['x'])).to.equal(true);
    expect(overlaps('ALL', 'ALL')).to.equal(true);
    expect(overlaps([], 'ALL')).to.equal(false);
    expect(overlaps([], [])).to.equal(false);
  });

  it('lanes of the four-PR example: A, B and D on the target head, C on head+A+B', () => {
    const r = planOf({ queue: parallel(), entries: [1, 2, 3, 4].map((n) => entry(n)), targets: fourPrs });
    expect(starts(r.actions)).to.deep.equal(['1|', '2|', '3|1,2', '4|']);
  });

  it('a lane with a cap starts no more runs than its cap, counting runs going; other lanes go on, what depends on a held one waits', () => {
    const targets = { e1: ['lane:api'], e2: ['lane:api'], e3: ['lane:web'], e4: ['lane:docs', 'lane:web'], e5: 'ALL' as const };
    const capped = planOf({ queue: parallel({ concurrency: 8 }), entries: [1, 2, 3, 4].map((n) => entry(n)), targets, laneCaps: { 'lane:api': 1 } });
    // #2 would be a second run of the api lane (on top of #1): it waits; the web lane goes on.
    expect(starts(capped.actions)).to.deep.equal(['1|', '3|', '4|3']);
    const going = planOf({
      queue: parallel({ concurrency: 8 }),
      entries: [held(1, 'r1'), entry(2), entry(3), entry(4), entry(5)],
      runs: [run('r1', [1])],
      targets,
      laneCaps: { 'lane:api': 1, 'lane:web': 1 },
    });
    // The api lane has its run going: #2 waits; web's cap lets #3 start, not #4 after it; the barrier #5 waits for what it sits on.
    expect(starts(going.actions)).to.deep.equal(['3|']);
    const uncapped = planOf({ queue: parallel({ concurrency: 8 }), entries: [held(1, 'r1'), entry(2), entry(3)], runs: [run('r1', [1])], targets });
    expect(starts(uncapped.actions), 'without caps').to.deep.equal(['2|1', '3|']);
  });

  it('ancestors are transitive: E=[backend] after C also sits on A', () => {
    const w = new World(input({ queue: parallel(), entries: [1, 2, 3, 4, 5].map((n) => entry(n)), targets: { ...fourPrs, e5: ['backend'] } }));
    const deps = buildDependencies(w, computeLineup(w).entries);
    expect(deps.ancestors('e5')).to.deep.equal(['e1', 'e2', 'e3']);
    expect(deps.ancestors('e4')).to.deep.equal([]);
  });

  it('ALL is a barrier: it depends on everything ahead and everything behind depends on it', () => {
    const r = planOf({ queue: parallel(), entries: [1, 2, 3, 4].map((n) => entry(n)), targets: { e1: ['a'], e2: ['b'], e3: 'ALL', e4: ['c'] } });
    expect(starts(r.actions)).to.deep.equal(['1|', '2|', '3|1,2', '4|1,2,3']);
  });

  it('an empty list depends on nothing and nothing depends on it; missing targets count as ALL', () => {
    const r = planOf({ queue: parallel(), entries: [1, 2, 3].map((n) => entry(n)), targets: { e1: 'ALL', e2: [] } });
    expect(starts(r.actions)).to.deep.equal(['1|', '2|', '3|1']);
  });

  it('concurrency caps all lanes together', () => {
    const r = planOf({ queue: parallel({ concurrency: 2 }), entries: [1, 2, 3, 4].map((n) => entry(n)), targets: fourPrs });
    expect(starts(r.actions)).to.deep.equal(['1|', '2|']);
  });

  it('a lane merges as soon as it passed, while another lane ahead is still testing', () => {
    const r = planOf({
      queue: parallel(),
      entries: [held(1, 'r1'), held(2, 'r2', 'tests_passed')],
      runs: [run('r1', [1]), passed(run('r2', [2]))],
      targets: { e1: ['a'], e2: ['b'] },
    });
    expect(mergeOf(r.actions)).to.equal('2@r2');
    const m = r.actions.find((a) => a.kind === 'merge');
    expect(m && m.kind === 'merge' && m.verifyTree).to.equal(false);
  });

  it('a merge in another lane does not make a run stale', () => {
    const r = planOf({
      queue: parallel(),
      entries: [merged(2, HEAD, 'm2'), held(1, 'r1')],
      runs: [run('r1', [1])],
      targets: { e1: ['a'], e2: ['b'] },
      head: 'm2',
    });
    expect(r.actions).to.deep.equal([]);
  });

  it('a failure restarts only the entries that depended on it', () => {
    const r = planOf({
      queue: parallel(),
      entries: [entry(1, { state: 'failed' }), held(2, 'r2'), held(3, 'r3'), held(4, 'r4')],
      runs: [run('r2', [2]), run('r3', [3], [1, 2]), run('r4', [4])],
      targets: fourPrs,
    });
    expect(cancels(r.actions)).to.deep.equal({ r3: 'prerequisite_merge_item_failed' });
    expect(moves(r.actions)).to.deep.equal({ e3: 'pending' });
    expect(starts(r.actions)).to.deep.equal(['3|2']);
  });

  it('a pending failure waits only for its own lane', () => {
    const r = planOf({
      queue: parallel(),
      entries: [held(1, 'r1'), held(2, 'r2', 'pending_failure')],
      runs: [run('r1', [1]), failed(run('r2', [2]))],
      targets: { e1: ['a'], e2: ['b'] },
    });
    expect(moves(r.actions)).to.deep.equal({ e2: 'failed' });
  });

  it('batches only take entries of one lane', () => {
    const r = planOf({
      queue: parallel({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 0 }),
      entries: [1, 2, 3, 4].map((n) => entry(n)),
      targets: { e1: ['a'], e2: ['b'], e3: ['a'], e4: ['a', 'b'] },
    });
    expect(starts(r.actions)).to.deep.equal(['1,3|', '2|', '4|1,2,3']);
  });

  it('end to end: two independent lanes; a failure in one does not restart the other', async () => {
    const sim = new Simulator({
      queue: queue(parallel({ concurrency: 4 })),
      entries: [1, 2, 3, 4].map((n) => entry(n)),
      targets: { e1: ['a'], e2: ['b'], e3: ['a'], e4: ['b'] },
      bad: new Set(['e1']),
    });
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1|', '2|', '3|1', '4|2']);
    await finish(sim, [1], 'failed');
    await sim.settle();
    expect(running(sim)).to.deep.equal(['2|', '4|2', '3|']);
    expect(sim.entries.get('e4')!.restartCount).to.equal(0);
    await finish(sim, [4], 'succeeded');
    await finish(sim, [2], 'succeeded');
    await finish(sim, [3], 'succeeded');
    await sim.settle();
    expect(states(sim)).to.deep.equal({ e1: 'failed', e2: 'merged', e3: 'merged', e4: 'merged' });
  });

  it('a mode switch waits for work in flight, then flips to the pending mode', async () => {
    const sim = new Simulator({ queue: queue({ concurrency: 2 }), entries: [1, 2].map((n) => entry(n)), targets: { e1: ['a'], e2: ['b'] } });
    await sim.settle();
    sim.addEntry(entry(3), ['c']);
    sim.queue = { ...sim.queue, state: 'switching_modes', pendingMode: 'parallel' };
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1|', '2|1']);
    await finish(sim, [1], 'succeeded');
    await finish(sim, [2], 'succeeded');
    await sim.settle();
    expect([sim.queue.state, sim.queue.mode]).to.deep.equal(['running', 'parallel']);
    expect(running(sim)).to.deep.equal(['3|']);
  });
});
