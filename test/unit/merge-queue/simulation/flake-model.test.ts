// The flake model of re-test instead of eject (issue 12 §4): runs flake on tests known as flaky,
// CI uploads results, and the engine (with the planner's re-test rule) plays the workload; and
// infrastructure failures (no results uploaded), which the verdict rules test again (issue 26).
import { expect } from 'chai';
import { playWorkload, type Workload } from '../../../../shared/merge-queue/simulation/workload.js';
import { queueEfficiency } from '../../../../shared/merge-queue/simulation/queue-efficiency.js';

function flaky(flakeRate: number, breaksEvery = 0): Workload {
  return {
    pullRequests: Array.from({ length: 40 }, (_, i) => ({ arrivesAt: i * 3, breaks: breaksEvery > 0 && (i + 1) % breaksEvery === 0 })),
    ciMinutes: [10],
    flakeRate,
    flakyTestResults: true,
    seed: 11,
  };
}

describe('simulation: the flake model', () => {
  it('without re-testing flakes eject innocent pull requests; with one re-test fewer are, and more merge', async () => {
    const w = flaky(0.2);
    const off = queueEfficiency(await playWorkload({ concurrency: 2, flakyRetries: 0 }, w, { checkDeterminism: true }));
    const on = queueEfficiency(await playWorkload({ concurrency: 2, flakyRetries: 1 }, w, { checkDeterminism: true }));
    expect(off.innocentEjections).to.be.greaterThan(0);
    expect(on.innocentEjections).to.be.lessThan(off.innocentEjections);
    expect(on.merged).to.be.greaterThan(off.merged);
  });

  it('a breaking change still fails with re-testing on (its failed test is not known as flaky)', async () => {
    const outcome = await playWorkload({ concurrency: 2, flakyRetries: 5, batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 5 }, flaky(0, 5), {
      checkDeterminism: true,
    });
    const failed = outcome.entries
      .filter((e) => e.state === 'failed')
      .map((e) => e.id)
      .sort();
    expect(failed).to.deep.equal([...outcome.breaking].sort());
    expect(outcome.entries.some((e) => e.history.some((h) => h.reason === 'test_run_retried_known_flaky'))).to.equal(false);
  });

  it('re-tested groups name the flaky test in their timeline', async () => {
    const outcome = await playWorkload({ concurrency: 2, flakyRetries: 1 }, flaky(0.3), { checkDeterminism: true });
    const retests = outcome.entries.flatMap((e) => e.history.filter((h) => h.reason === 'test_run_retried_known_flaky'));
    expect(retests.length).to.be.greaterThan(0);
    for (const h of retests) expect(h.detail).to.contain('known flaky: flaky_test');
  });
});

describe('simulation: infrastructure failures and the verdict rules', () => {
  const infra: Workload = { ...flaky(0), infraFailureRate: 0.15, seed: 5 };

  it('ejected innocent pull requests before; tested again, none is ejected with notItsFaultRetries on', async () => {
    const off = await playWorkload({ concurrency: 2, notItsFaultRetries: 0 }, infra, { checkDeterminism: true });
    expect(queueEfficiency(off).innocentEjections).to.be.greaterThan(0);
    const on = await playWorkload({ concurrency: 2, notItsFaultRetries: 3 }, infra, { checkDeterminism: true });
    expect(on.truncated).to.equal(false);
    expect(queueEfficiency(on).innocentEjections).to.equal(0);
    const retests = on.entries.flatMap((e) => e.history.filter((h) => h.reason === 'test_run_retried_not_its_fault'));
    expect(retests.length).to.be.greaterThan(0);
    for (const h of retests) expect(h.detail).to.match(/^not its fault \(infrastructure, rule no_results\)/);
  });

  it('without infrastructure failures, the workload plays exactly as before (no extra random draw)', async () => {
    const before = await playWorkload({ concurrency: 2, flakyRetries: 1 }, flaky(0.2));
    const zero = await playWorkload({ concurrency: 2, flakyRetries: 1 }, { ...flaky(0.2), infraFailureRate: 0 });
    expect(zero.entries.map((e) => [e.id, e.state, e.history.length])).to.deep.equal(before.entries.map((e) => [e.id, e.state, e.history.length]));
  });
});
