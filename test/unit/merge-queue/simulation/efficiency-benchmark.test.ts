// The efficiency benchmark on a reduced grid (the full grid is only run by
// scripts/simulate-efficiency.ts): the oracle bounds every strategy, and the strategies differ the
// way their designs say they should.
import { expect } from 'chai';
import { evaluateCell } from '../../../../shared/merge-queue/simulation/efficiency-benchmark.js';

describe('simulation: efficiency benchmark (one cell)', () => {
  it('at 80 % load no strategy beats the oracle, speculation beats a serial queue, batching costs fewer runs', async () => {
    const r = await evaluateCell({ load: 0.8, failureRate: 0.05, flakeRate: 0, ciMinutes: 10 }, { pullRequests: 60, advicePullRequests: 30, seed: 1 });
    for (const [name, s] of Object.entries(r)) {
      expect(s.p50!, name).to.be.at.least(1);
      expect(s.innocentEjections, `${name}: no flakes, no innocent ejections`).to.equal(0);
    }
    expect(r.speculative.p50!).to.be.lessThan(r.serial.p50!);
    expect(r.bors.ciRunsPerMerged!).to.be.lessThan(r.speculative.ciRunsPerMerged!);
    expect(r.advised.settings).to.not.equal(null);
  });
});
