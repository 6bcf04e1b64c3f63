// What getMergeQueueTestingDetails reports as a run's impacted targets (spec §2.7): the union over
// the branch and over the tested pull requests, present only when targets were uploaded.
import { expect } from 'chai';
import { runImpactedTargets } from '../../../shared/merge-queue/domain/run-impacted-targets.js';
import type { ImpactedTargetSet } from '../../../shared/merge-queue/domain/planner/index.js';

const uploads = (m: Record<string, ImpactedTargetSet>) => (id: string) => m[id] ?? null;

describe('run impacted targets', () => {
  it('unions the branch (base then tested, first appearance order) and the tested pull requests apart', () => {
    const r = runImpactedTargets(['a', 'b'], ['c'], uploads({ a: ['frontend'], b: ['backend'], c: ['backend', 'search'] }));
    expect(r).to.deep.equal({ impactedTargets: ['frontend', 'backend', 'search'], impactedTargetsForTestedPrs: ['backend', 'search'] });
  });

  it('is absent when no pull request of the run uploaded targets', () => {
    expect(runImpactedTargets(['a'], ['b'], uploads({}))).to.deep.equal({});
  });

  it('reports only the branch union when only a dependent pull request uploaded', () => {
    expect(runImpactedTargets(['a'], ['b'], uploads({ a: ['x'] }))).to.deep.equal({ impactedTargets: ['ALL'] });
  });

  it('a missing upload next to others, or ALL, makes the union ["ALL"]', () => {
    expect(runImpactedTargets([], ['a', 'b'], uploads({ a: ['x'] }))).to.deep.equal({ impactedTargets: ['ALL'], impactedTargetsForTestedPrs: ['ALL'] });
    expect(runImpactedTargets(['a'], ['b'], uploads({ a: 'ALL', b: ['y'] }))).to.deep.equal({ impactedTargets: ['ALL'], impactedTargetsForTestedPrs: ['y'] });
  });

  it('empty lists contribute nothing but still count as uploaded', () => {
    expect(runImpactedTargets([], ['a'], uploads({ a: [] }))).to.deep.equal({ impactedTargets: [], impactedTargetsForTestedPrs: [] });
  });
});
