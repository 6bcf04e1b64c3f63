import { expect } from 'chai';
import { evaluateReadiness, isReady, readinessInMode } from '../../../shared/merge-queue/domain/readiness.js';

const facts = { prBaseBranch: 'main', queueBranch: 'main', mergeability: 'mergeable' as const, mode: 'single' as const, hasImpactedTargets: false };

describe('readiness', () => {
  it('is ready in single mode when the base matches and it merges cleanly', () => {
    const r = evaluateReadiness(facts);
    expect(r).to.deep.equal({ doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: false, hasImpactedTargets: false });
    expect(isReady(r)).to.equal(true);
  });

  it('is not ready with another base, a conflict or unknown mergeability', () => {
    expect(isReady(evaluateReadiness({ ...facts, prBaseBranch: 'develop' }))).to.equal(false);
    expect(isReady(evaluateReadiness({ ...facts, mergeability: 'not_mergeable' }))).to.equal(false);
    expect(isReady(evaluateReadiness({ ...facts, mergeability: 'unspecified' }))).to.equal(false);
  });

  it('requires impacted targets in parallel mode only', () => {
    const parallel = evaluateReadiness({ ...facts, mode: 'parallel' });
    expect(parallel.requiresImpactedTargets).to.equal(true);
    expect(isReady(parallel)).to.equal(false);
    expect(isReady(evaluateReadiness({ ...facts, mode: 'parallel', hasImpactedTargets: true }))).to.equal(true);
  });

  it('re-judges readiness in another mode without other facts changing', () => {
    const single = evaluateReadiness(facts);
    expect(readinessInMode(single, 'single')).to.equal(null);
    expect(readinessInMode(single, 'parallel')).to.deep.equal({ ...single, requiresImpactedTargets: true });
    expect(isReady(readinessInMode(single, 'parallel')!)).to.equal(false);
  });
});
