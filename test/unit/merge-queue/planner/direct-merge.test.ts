// directMergeMode `always` (merge-queue-behaviour §1.14).
import { expect } from 'chai';
import { entry, held, mergeOf, planOf, run, starts, type Scenario } from '../../../../shared/merge-queue/simulation/builders.js';

const facts = { basedOnTargetTip: true, requiredStatusesPassing: true };

describe('planner: direct merge', () => {
  it('merges a ready pull request on the tip with passing statuses when the queue is empty', () => {
    const r = planOf({ queue: { directMergeMode: 'always' }, entries: [entry(1, { state: 'not_ready' })], directMerge: { e1: facts } });
    expect(mergeOf(r.actions)).to.equal('1@direct');
  });

  it('does not when the setting is off, the PR is not on the tip, or its statuses do not pass', () => {
    const cases: Omit<Scenario, 'entries'>[] = [
      { queue: { directMergeMode: 'off' as const }, directMerge: { e1: facts } },
      { queue: { directMergeMode: 'always' as const }, directMerge: { e1: { ...facts, basedOnTargetTip: false } } },
      { queue: { directMergeMode: 'always' as const }, directMerge: { e1: { ...facts, requiredStatusesPassing: false } } },
      { queue: { directMergeMode: 'always' as const }, directMerge: {} },
    ];
    for (const c of cases) {
      const r = planOf({ ...c, entries: [entry(1, { state: 'not_ready' })] });
      expect(mergeOf(r.actions)).to.equal(null);
      expect(starts(r.actions)).to.deep.equal(['1|']);
    }
  });

  it('does not when something is ahead in the queue, or the queue is not running', () => {
    const busy = planOf({
      queue: { directMergeMode: 'always' },
      entries: [held(1, 'r1'), entry(2, { state: 'not_ready' })],
      runs: [run('r1', [1])],
      directMerge: { e2: facts },
    });
    expect(mergeOf(busy.actions)).to.equal(null);
    const paused = planOf({ queue: { directMergeMode: 'always', state: 'paused' }, entries: [entry(1, { state: 'not_ready' })], directMerge: { e1: facts } });
    expect(paused.actions).to.deep.equal([]);
  });

  it('parallel mode: only the PR’s lane must be empty', () => {
    const r = planOf({
      queue: { directMergeMode: 'always', mode: 'parallel' },
      entries: [held(1, 'r1'), entry(2, { state: 'not_ready' })],
      runs: [run('r1', [1])],
      targets: { e1: ['backend'], e2: ['docs'] },
      directMerge: { e2: facts },
    });
    expect(mergeOf(r.actions)).to.equal('2@direct');
  });
});
