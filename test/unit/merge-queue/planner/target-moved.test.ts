// The target branch moving outside the queue (transition-table row 18): stale runs restart on
// the new head; merges by the queue itself never make a run stale; nothing merges from a stale run.
import { expect } from 'chai';
import {
  HEAD,
  cancels,
  entry,
  held,
  merged,
  mergeOf,
  passed,
  planOf,
  queue,
  reasons,
  run,
  starts,
} from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running } from '../../../../shared/merge-queue/simulation/simulator.js';

describe('planner: target branch moved', () => {
  it('restarts stale runs on the new head (manual_push_to_target_branch) and merges nothing from them', () => {
    const r = planOf({
      entries: [held(1, 'r1', 'tests_passed'), held(2, 'r2')],
      runs: [passed(run('r1', [1])), run('r2', [2], [1])],
      head: 'outside',
    });
    expect(mergeOf(r.actions)).to.equal(null);
    expect(cancels(r.actions)).to.deep.equal({ r2: 'manual_push_to_target_branch' });
    expect(reasons(r.actions)).to.deep.equal({ e1: 'manual_push_to_target_branch', e2: 'manual_push_to_target_branch' });
    expect(starts(r.actions)).to.deep.equal(['1|', '2|1']);
  });

  it('the queue following its own merges is not a move', () => {
    const r = planOf({
      entries: [merged(1, HEAD, 'm1'), merged(2, 'm1', 'm2'), held(3, 'r3')],
      runs: [run('r3', [3], [1, 2])],
      head: 'm2',
    });
    expect(r.actions).to.deep.equal([]);
  });

  it('a push after the queue merged part of a base is a move', () => {
    const r = planOf({
      entries: [merged(1, HEAD, 'm1'), held(2, 'r2')],
      runs: [run('r2', [2], [1])],
      head: 'outside-on-m1',
    });
    expect(cancels(r.actions)).to.deep.equal({ r2: 'manual_push_to_target_branch' });
  });

  it('a head reset below a merge the run relied on is a move too', () => {
    const r = planOf({ entries: [merged(1, HEAD, 'm1'), held(2, 'r2')], runs: [run('r2', [2], [1])], head: HEAD });
    expect(cancels(r.actions)).to.deep.equal({ r2: 'manual_push_to_target_branch' });
  });

  it('an entry of the base merged outside the queue restarts the run (prerequisite_merge_item_manually_merged)', () => {
    const r = planOf({
      entries: [entry(1, { state: 'merged', lastReason: 'manual_merge' }), held(2, 'r2')],
      runs: [run('r2', [2], [1])],
      head: 'manual',
    });
    expect(reasons(r.actions)).to.deep.equal({ e2: 'prerequisite_merge_item_manually_merged' });
  });

  it('end to end: a push outside the queue restarts everything testing, then the queue carries on', async () => {
    const sim = new Simulator({ queue: queue({ concurrency: 2 }), entries: [1, 2].map((n) => entry(n)) });
    await sim.settle();
    sim.pushOutside('hotfix', 'outside');
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1|', '2|1']);
    expect([...sim.runs.values()].filter((r) => r.status === 'in_progress').map((r) => r.targetSha)).to.deep.equal(['outside', 'outside']);
    await finish(sim, [1], 'succeeded');
    await finish(sim, [2], 'succeeded');
    await sim.settle();
    expect(sim.mergeOrder).to.deep.equal(['e1', 'e2']);
    expect(sim.changesAt(sim.head)).to.deep.equal(['hotfix', 'e1', 'e2']);
  });

  it('with the target branch missing nothing starts and nothing merges', () => {
    const r = planOf({ entries: [held(1, 'r1', 'tests_passed'), entry(2)], runs: [passed(run('r1', [1]))], head: null });
    expect(r.actions).to.deep.equal([]);
  });
});
