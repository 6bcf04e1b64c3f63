// Stacks in the planner (domain/planner/stacks.ts): a stack is one unit — tested whole in one
// run whatever the batching settings, batched only whole, bisected by prefixes — and a member
// whose member below failed or left takes the members above it out with `stack_member_removed`.
import { expect } from 'chai';
import type { Entry, EntryStack } from '../../../../shared/merge-queue/domain/model.js';
import { entry, planOf, queue } from '../../../../shared/merge-queue/simulation/builders.js';
import { Simulator, finish, running, states } from '../../../../shared/merge-queue/simulation/simulator.js';

/** Members `numbers` (bottom first) of one stack, each based on the head branch of the one below. */
function stack(numbers: number[], over: Partial<Entry> = {}): Entry[] {
  return numbers.map((n, i) => {
    const place: EntryStack = {
      id: `q1:${numbers[0]}`,
      position: i + 1,
      size: numbers.length,
      belowPr: i === 0 ? null : numbers[i - 1]!,
      belowHeadBranch: i === 0 ? null : `feature-${numbers[i - 1]}`,
    };
    return entry(n, { stack: place, prBaseBranch: i === 0 ? 'main' : `feature-${numbers[i - 1]}`, ...over });
  });
}

const starts = (r: ReturnType<typeof planOf>) =>
  r.actions.flatMap((a) => (a.kind === 'start_run' ? [`${a.tested.map((t) => t.prNumber).join(',')}|${a.base.map((b) => b.prNumber).join(',')}`] : []));
const transitions = (r: ReturnType<typeof planOf>) =>
  r.actions.flatMap((a) => (a.kind === 'transition_entry' ? [`${a.entry.entryId}→${a.to}:${a.reason}`] : []));

describe('planner: stacks', () => {
  it('tests a stack as one run with batching off, and the entry behind it on top of it', () => {
    const r = planOf({ queue: { concurrency: 3 }, entries: [...stack([1, 2, 3]), entry(4)] });
    expect(starts(r)).to.deep.equal(['1,2,3|', '4|1,2,3']);
  });

  it('batches a stack only whole: one that does not fit closes the batch; one larger than the size is a batch by itself', () => {
    const batching = { batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 0, concurrency: 3 };
    expect(starts(planOf({ queue: batching, entries: [entry(1), entry(2), ...stack([3, 4])] }))).to.deep.equal(['1,2|', '3,4|1,2']);
    expect(starts(planOf({ queue: batching, entries: [entry(1), ...stack([2, 3])] }))).to.deep.equal(['1,2,3|']);
    expect(starts(planOf({ queue: batching, entries: [...stack([1, 2, 3, 4]), entry(5)] }))).to.deep.equal(['1,2,3,4|', '5|1,2,3,4']);
  });

  it('keeps a stack together in line whatever its members priorities, where its first member stands', () => {
    const members = stack([1, 2]);
    members[1]!.priorityValue = 200; // submitted earlier with a lower priority
    const r = planOf({ queue: { concurrency: 2 }, entries: [...members, entry(3, { seq: 0, priorityValue: 150 })] });
    expect(starts(r)).to.deep.equal(['1,2|', '3|1,2']);
  });

  it('a member that is not ready holds the whole stack back (waiting, not ready), not the entries behind it', () => {
    const members = stack([1, 2]);
    members[1]!.state = 'not_ready';
    members[1]!.readiness = { ...members[1]!.readiness, gitHubMergeability: 'in_progress' };
    const r = planOf({ queue: { concurrency: 2 }, entries: [...members, entry(3)] });
    expect(transitions(r)).to.deep.equal(['e1→not_ready:merge_item_no_longer_ready']);
    expect(r.actions.find((a) => a.kind === 'transition_entry')).to.include({ detail: 'waiting for PR #2 of its stack to be ready' });
    expect(starts(r)).to.deep.equal(['3|']);
  });

  it('a failed member takes the members above it out; the members below stay', () => {
    const members = stack([1, 2, 3]);
    members[1]!.state = 'failed';
    members[1]!.lastReason = 'test_run_required_status_failed';
    const r = planOf({ queue: {}, entries: members });
    expect(transitions(r)).to.include('e3→failed:stack_member_removed');
    expect(starts(r)).to.deep.equal(['1|']);
  });

  it('a member below that left the queue (cancelled through the API) cancels the members above it', () => {
    const members = stack([1, 2, 3]);
    members[0]!.state = 'cancelled';
    const r = planOf({ queue: {}, entries: members });
    expect(transitions(r)).to.deep.equal(['e2→cancelled:stack_member_removed', 'e3→cancelled:stack_member_removed']);
    expect(starts(r)).to.deep.equal([]);
  });

  it('a member below merged outside the queue leaves the members above it queued', () => {
    const members = stack([1, 2]);
    members[0]!.state = 'merged';
    members[0]!.lastReason = 'manual_merge';
    const r = planOf({ queue: {}, entries: members });
    expect(transitions(r)).to.deep.equal([]);
  });

  it('end to end: a failed stack run is bisected by prefixes; the first failing member fails, those above it leave, those below merge', async () => {
    const sim = new Simulator({
      queue: queue({ concurrency: 1, bisectionConcurrency: 1, optimizationMode: 'bisection_skip_redundant_tests' }),
      entries: stack([1, 2, 3, 4]),
    });
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1,2,3,4|']);
    await finish(sim, [1, 2, 3, 4], 'failed');
    await sim.settle();
    expect(running(sim)).to.deep.equal(['1,2|']);
    await finish(sim, [1, 2], 'succeeded');
    await sim.settle();
    // The proven prefix merged: #3 is tested on the new head.
    expect(states(sim)).to.deep.include({ e1: 'merged', e2: 'merged' });
    expect(running(sim)).to.deep.equal(['3|']);
    await finish(sim, [3], 'failed');
    await sim.settle();
    expect(states(sim)).to.deep.equal({ e1: 'merged', e2: 'merged', e3: 'failed', e4: 'failed' });
    expect(sim.entries.get('e4')!.lastReason).to.equal('stack_member_removed');
  });

  it('with stackFailure land_nothing the proven prefix waits for the search; the first failing member takes the whole stack out', async () => {
    const sim = new Simulator({
      queue: queue({ concurrency: 1, bisectionConcurrency: 1, optimizationMode: 'bisection_skip_redundant_tests', stackFailure: 'land_nothing' }),
      entries: stack([1, 2, 3, 4]),
    });
    await sim.settle();
    await finish(sim, [1, 2, 3, 4], 'failed');
    await sim.settle();
    await finish(sim, [1, 2], 'succeeded');
    await sim.settle();
    // Proven, but not merged: the stack lands whole or not at all.
    expect(states(sim)).to.deep.include({ e1: 'tests_passed', e2: 'tests_passed' });
    expect(running(sim)).to.deep.equal(['3|1,2']);
    await finish(sim, [3], 'failed');
    await sim.settle();
    expect(states(sim)).to.deep.equal({ e1: 'failed', e2: 'failed', e3: 'failed', e4: 'failed' });
    expect([sim.entries.get('e1')!.lastReason, sim.entries.get('e1')!.history.at(-1)!.detail]).to.deep.equal([
      'stack_member_removed',
      'PR #3 above it in its stack failed, and the queue lands this stack whole or not at all',
    ]);
  });

  it('with stackFailure land_nothing a failed member takes the members below it out too; a cancelled one only those above', () => {
    const failedOne = stack([1, 2, 3]);
    failedOne[1]!.state = 'failed';
    const r = planOf({ queue: { stackFailure: 'land_nothing' }, entries: failedOne });
    expect(transitions(r)).to.deep.equal(['e3→failed:stack_member_removed', 'e1→failed:stack_member_removed']);
    expect(starts(r)).to.deep.equal([]);
    const cancelledOne = stack([1, 2, 3]);
    cancelledOne[1]!.state = 'cancelled';
    const c = planOf({ queue: { stackFailure: 'land_nothing' }, entries: cancelledOne });
    expect(transitions(c)).to.deep.equal(['e3→cancelled:stack_member_removed']);
    expect(starts(c)).to.deep.equal(['1|']);
  });
});
