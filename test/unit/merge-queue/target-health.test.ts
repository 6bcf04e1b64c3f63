// The target branch's health from CI's results for its head (domain/target-health.ts).
import { expect } from 'chai';
import {
  explainedByBrokenTarget,
  targetHealthAfter,
  targetHealthChange,
  targetHealthChanged,
  type CommitFailedTest,
} from '../../../shared/merge-queue/domain/target-health.js';

const T0 = new Date('2026-11-01T00:00:00Z');
const T1 = new Date('2026-11-01T01:00:00Z');
const fails = (id: string, over: Partial<CommitFailedTest> = {}): CommitFailedTest => ({
  id,
  name: `name_${id}`,
  knownFlaky: false,
  quarantined: false,
  ...over,
});

describe('target branch health', () => {
  it('breaks when a test that was not known flaky or quarantined fails on the head; known flakes and quarantined tests never break it', () => {
    expect(targetHealthAfter(null, { sha: 'h1', failures: [fails('b'), fails('a')] }, T0)).to.deep.equal({
      sha: 'h1',
      tests: [
        { id: 'a', name: 'name_a' },
        { id: 'b', name: 'name_b' },
      ],
      since: T0,
    });
    expect(targetHealthAfter(null, { sha: 'h1', failures: [fails('a', { knownFlaky: true }), fails('b', { quarantined: true })] }, T0)).to.equal(null);
  });

  it('stays as it was while the head has no results; green once results show nothing failing', () => {
    const broken = targetHealthAfter(null, { sha: 'h1', failures: [fails('a')] }, T0);
    expect(targetHealthAfter(broken, { sha: 'h2', failures: null }, T1)).to.equal(broken);
    expect(targetHealthAfter(broken, { sha: 'h2', failures: [] }, T1)).to.equal(null);
    expect(targetHealthAfter(null, { sha: 'h2', failures: null }, T1)).to.equal(null);
  });

  it('a broken branch keeps the time it broke when its head or its failing tests change', () => {
    const broken = targetHealthAfter(null, { sha: 'h1', failures: [fails('a')] }, T0)!;
    expect(targetHealthAfter(broken, { sha: 'h1', failures: [fails('a')] }, T1)).to.equal(broken);
    const moved = targetHealthAfter(broken, { sha: 'h2', failures: [fails('a'), fails('c')] }, T1)!;
    expect([moved.sha, moved.tests.map((t) => t.id), moved.since]).to.deep.equal(['h2', ['a', 'c'], T0]);
    expect(targetHealthChanged(broken, moved)).to.equal(true);
    expect(targetHealthChange(broken, moved)).to.equal(null);
    expect(targetHealthChange(null, broken)).to.equal('broken');
    expect(targetHealthChange(broken, null)).to.equal('recovered');
    expect(targetHealthChanged(null, null)).to.equal(false);
  });

  it('explains a failure when every test that failed (known flakes aside) fails on the branch', () => {
    const broken = { sha: 'h1', tests: [{ id: 'a', name: 'name_a' }], since: T0 };
    const evidence = (id: string, knownFlaky = false) => ({ id, name: id, knownFlaky, quarantined: false, onTarget: null, onHead: null });
    expect(explainedByBrokenTarget(broken, [evidence('a')])).to.equal(true);
    expect(explainedByBrokenTarget(broken, [evidence('a'), evidence('f', true)])).to.equal(true);
    expect(explainedByBrokenTarget(broken, [evidence('a'), evidence('b')])).to.equal(false);
    expect(explainedByBrokenTarget(broken, [])).to.equal(false);
    expect(explainedByBrokenTarget(broken, [evidence('f', true)])).to.equal(false);
  });
});
