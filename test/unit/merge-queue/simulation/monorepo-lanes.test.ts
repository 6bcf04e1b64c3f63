// Lanes from paths through the production engine (docs/lanes.md#how-much-they-help): the same
// monorepo workload — four areas, 80 % load, 5 % breaking, 3 % flakes — merges sooner and with
// fewer CI runs as lanes computed from the paths than as one line, with nothing uploaded, and the
// simulator's invariants (nothing merges on top of an untested change of its lanes) hold.
import { expect } from 'chai';
import { compareLanes, monorepoWorkload } from '../../../../shared/merge-queue/simulation/monorepo-lanes.js';

describe('simulation: lanes from paths in a monorepo', function () {
  this.timeout(60_000);

  for (const seed of [1, 2]) {
    it(`seed ${seed}: lanes merge sooner at the median and in the tail, with fewer CI runs, than one line`, async () => {
      const w = monorepoWorkload({ load: 0.8, failureRate: 0.05, flakeRate: 0.03, ciMinutes: 10 }, 120, seed);
      const { oneLine, lanes } = await compareLanes(w);
      expect(oneLine.unfinished + lanes.unfinished).to.equal(0);
      expect(lanes.timeInQueueMinutes.p50!).to.be.below(oneLine.timeInQueueMinutes.p50! * 0.7);
      expect(lanes.timeInQueueMinutes.p95!).to.be.below(oneLine.timeInQueueMinutes.p95!);
      expect(lanes.ciRunsPerMerged!).to.be.below(oneLine.ciRunsPerMerged!);
    });
  }
});
