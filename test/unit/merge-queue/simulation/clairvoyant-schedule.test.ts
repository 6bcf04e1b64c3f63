// The clairvoyant schedule the efficiency benchmark sets beside the engine: breaking pull requests
// never tested, neighbours paired by shortest gap until the run budget is met.
import { expect } from 'chai';
import { clairvoyantSchedule } from '../../../../shared/merge-queue/simulation/clairvoyant-schedule.js';
import type { Workload } from '../../../../shared/merge-queue/simulation/workload.js';

const workload = (arrivals: number[], breaking: number[] = []): Workload => ({
  pullRequests: arrivals.map((arrivesAt, i) => ({ arrivesAt, breaks: breaking.includes(i) })),
  ciMinutes: [10],
  flakeRate: 0,
  seed: 1,
});

describe('simulation: clairvoyant schedule', () => {
  it('pairs the neighbours with the shortest gaps until the run budget is met; the first of a pair waits for the second', () => {
    // In CI durations: 0, 0.1, 1, 1.05, 3 (and a breaking one at 2, never tested).
    const s = clairvoyantSchedule(workload([0, 1, 10, 10.5, 20, 30], [4]), 0.7);
    // Five to merge, 0.7 runs each: two pairs — (1, 1.05) then (0, 0.1); the one at 3 alone.
    expect(s.runsPerMerged).to.equal(3 / 5);
    expect(s.p50).to.equal(1);
    expect(s.p95).to.be.closeTo(1.1, 1e-9);
    // The pairs' runs start at 0.1 and 1.05 and overlap; the last starts at 3.
    expect(s.maxInFlight).to.equal(2);
  });

  it('a budget of one run each pairs nothing: every pull request merges one CI duration after it arrives', () => {
    const s = clairvoyantSchedule(workload([0, 10, 20, 30]), 1);
    expect([s.p50, s.p95, s.runsPerMerged, s.maxInFlight]).to.deep.equal([1, 1, 1, 1]);
  });

  it('no pull request is in two pairs: three arrivals make one pair at most, whatever the budget', () => {
    const s = clairvoyantSchedule(workload([0, 1, 2]), 0.1);
    expect(s.runsPerMerged).to.equal(2 / 3);
  });
});
