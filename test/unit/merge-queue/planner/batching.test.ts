// Batch formation (merge-queue-behaviour §1.9): target size, max wait, noBatch, one slot per batch.
import { expect } from 'chai';
import { at, entry, held, passed, planOf, queue, run, starts, mergeOf } from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running } from '../../../../shared/merge-queue/simulation/simulator.js';

const batching = (over = {}) => ({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 10, concurrency: 2, ...over });

describe('planner: batching', () => {
  it('groups pending entries in queue order into batches of the target size; a batch takes one slot', () => {
    const r = planOf({ queue: batching(), entries: [1, 2, 3, 4, 5, 6, 7].map((n) => entry(n)) });
    expect(starts(r.actions)).to.deep.equal(['1,2,3|', '4,5,6|1,2,3']);
  });

  it('a smaller batch at the tail waits for more entries until its oldest entry waited the max wait', () => {
    const entries = [entry(1, { stateChangedAt: at(0) }), entry(2, { stateChangedAt: at(4) })];
    const early = planOf({ queue: batching(), entries, now: at(5) });
    expect(starts(early.actions)).to.deep.equal([]);
    expect(early.wakeAt).to.deep.equal(at(10));
    const due = planOf({ queue: batching(), entries, now: at(10) });
    expect(starts(due.actions)).to.deep.equal(['1,2|']);
  });

  it('a max wait of 0 starts a partial batch at once', () => {
    const r = planOf({ queue: batching({ batchingMaxWaitTimeMinutes: 0 }), entries: [entry(1), entry(2)] });
    expect(starts(r.actions)).to.deep.equal(['1,2|']);
  });

  it('a noBatch entry is tested alone in its place and closes the batch before it', () => {
    const r = planOf({ queue: batching({ concurrency: 3 }), entries: [entry(1), entry(2), entry(3, { noBatch: true }), entry(4), entry(5), entry(6)] });
    expect(starts(r.actions)).to.deep.equal(['1,2|', '3|1,2', '4,5,6|1,2,3']);
  });

  it('a batch holding an urgent entry does not wait', () => {
    const r = planOf({ queue: batching(), entries: [entry(1, { priorityValue: 0 })] });
    expect(starts(r.actions)).to.deep.equal(['1|']);
  });

  it('batching off, or a target size of 1, tests entries one by one', () => {
    expect(starts(planOf({ queue: batching({ batch: false }), entries: [entry(1), entry(2)] }).actions)).to.deep.equal(['1|', '2|1']);
    expect(starts(planOf({ queue: batching({ batchingMinSize: 1 }), entries: [entry(1), entry(2)] }).actions)).to.deep.equal(['1|', '2|1']);
  });

  it('a batch behind runs already built is tested on top of them', () => {
    const r = planOf({ queue: batching(), entries: [held(1, 'r1'), entry(2), entry(3), entry(4)], runs: [run('r1', [1])] });
    expect(starts(r.actions)).to.deep.equal(['2,3,4|1']);
  });

  it('a passing batch merges each pull request as its own item, in order', () => {
    const r = planOf({ queue: batching(), entries: [1, 2, 3].map((n) => held(n, 'r1', 'tests_passed')), runs: [passed(run('r1', [1, 2, 3]))] });
    expect(mergeOf(r.actions)).to.equal('1,2,3@r1');
  });

  it('end to end: entries arriving over time fill a batch or start when the wait is over', async () => {
    const sim = new Simulator({ queue: queue(batching({ batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 })), entries: [entry(1)] });
    await sim.settle();
    expect(running(sim)).to.deep.equal([]);
    expect(sim.lastWake).to.deep.equal(at(5));
    sim.now = at(2).getTime();
    sim.addEntry(entry(2, { stateChangedAt: at(2) }));
    await sim.settle();
    expect(running(sim)).to.deep.equal([]);
    sim.now = at(5).getTime();
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1,2|']);
    await finish(sim, [1, 2], 'succeeded');
    await sim.settle();
    expect(sim.mergeOrder).to.deep.equal(['e1', 'e2']);
  });
});
