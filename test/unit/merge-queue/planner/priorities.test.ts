// Priorities (merge-queue-behaviour §1.12): groups start in priority then admission order; a
// higher priority never reorders runs already built; only urgent (0) interrupts.
import { expect } from 'chai';
import { cancels, entry, held, moves, passed, planOf, queue, reasons, run, starts } from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running, states } from '../../../../shared/merge-queue/simulation/simulator.js';

describe('planner: priorities', () => {
  it('starts groups in priority order, then admission order', () => {
    const r = planOf({
      queue: { concurrency: 4 },
      entries: [entry(1, { priorityValue: 200 }), entry(2), entry(3, { priorityValue: 10 }), entry(4)],
    });
    expect(starts(r.actions)).to.deep.equal(['3|', '2|3', '4|3,2', '1|3,2,4']);
  });

  it('a later high-priority entry goes ahead of pending entries, behind the runs already built', () => {
    const r = planOf({
      queue: { concurrency: 2 },
      entries: [held(1, 'r1'), entry(2), entry(3, { priorityValue: 10 })],
      runs: [run('r1', [1])],
    });
    expect(starts(r.actions)).to.deep.equal(['3|1']);
  });

  it('raising the priority of an entry already queued restarts nothing', () => {
    const r = planOf({
      queue: { concurrency: 2 },
      entries: [held(1, 'r1'), held(2, 'r2', 'testing', { priorityValue: 10 })],
      runs: [run('r1', [1]), run('r2', [2], [1])],
    });
    expect(r.actions).to.deep.equal([]);
  });

  it('a non-urgent priority never interrupts a running test', () => {
    const r = planOf({
      queue: { concurrency: 1 },
      entries: [held(1, 'r1', 'testing', { priorityValue: 200 }), entry(2, { priorityValue: 10 })],
      runs: [run('r1', [1])],
    });
    expect(r.actions).to.deep.equal([]);
  });

  it('urgent with a free slot simply starts (nothing is interrupted)', () => {
    const r = planOf({ queue: { concurrency: 2 }, entries: [held(1, 'r1'), entry(2, { priorityValue: 0 })], runs: [run('r1', [1])] });
    expect(cancels(r.actions)).to.deep.equal({});
    expect(starts(r.actions)).to.deep.equal(['2|1']);
  });

  it('urgent preemption takes the lowest-priority running group and the groups tested on top of it', () => {
    const r = planOf({
      queue: { concurrency: 3 },
      entries: [
        held(1, 'r1', 'testing', { priorityValue: 10 }),
        held(2, 'r2', 'testing', { priorityValue: 200 }),
        held(3, 'r3'),
        entry(4, { priorityValue: 0 }),
      ],
      runs: [run('r1', [1]), run('r2', [2], [1]), run('r3', [3], [1, 2])],
    });
    expect(cancels(r.actions)).to.deep.equal({ r2: 'skip_the_line_interrupted', r3: 'skip_the_line_interrupted' });
    expect(moves(r.actions)).to.deep.equal({ e2: 'pending', e3: 'pending' });
    // The urgent entry takes the freed slot first; the interrupted ones restart behind it.
    expect(starts(r.actions)).to.deep.equal(['4|1', '3|1,4']);
  });

  it('on a tie the earliest running group is interrupted, so urgent gets ahead of it (D urgent: A restarts behind D, B back to pending)', async () => {
    const sim = new Simulator({ queue: queue({ concurrency: 2 }), entries: [1, 2].map((n) => entry(n)) });
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1|', '2|1']);
    sim.addEntry(entry(4, { priorityValue: 0 }));
    await sim.settle();
    expect(running(sim)).to.deep.equal(['4|', '1|4']);
    expect(states(sim)).to.deep.equal({ e1: 'testing', e2: 'pending', e4: 'testing' });
    expect(sim.entries.get('e1')!.restartCount).to.equal(1);
    await finish(sim, [4], 'succeeded');
    await sim.settle();
    expect(sim.mergeOrder).to.deep.equal(['e4']);
  });

  it('an urgent entry never interrupts another urgent group, nor a passed one', () => {
    const r = planOf({
      queue: { concurrency: 2 },
      entries: [held(1, 'r1', 'testing', { priorityValue: 0 }), held(2, 'r2', 'tests_passed'), entry(3, { priorityValue: 0 })],
      runs: [run('r1', [1]), passed(run('r2', [2], [1]))],
    });
    expect(cancels(r.actions)).to.deep.equal({});
    expect(reasons(r.actions)).to.deep.equal({});
  });
});
