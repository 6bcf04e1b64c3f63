// A queue's history read back as a workload, replayed under other settings, and settings advice.
import { expect } from 'chai';
import { inMemoryRepositories } from '../../../../shared/merge-queue/simulation/in-memory-repositories.js';
import { inferWorkload, readQueueHistory } from '../../../../shared/merge-queue/simulation/queue-history.js';
import { at, entry, failed, passed, run } from '../../../../shared/merge-queue/simulation/builders.js';
import { adviceGrid, adviseSettings, playGrid, refinements } from '../../../../shared/merge-queue/simulation/settings-advice.js';
import { DEFAULT_SETTINGS, whatIf, type SettingsOutcome } from '../../../../shared/merge-queue/simulation/what-if.js';
import { playWorkload, type Workload, type WorkloadOutcome } from '../../../../shared/merge-queue/simulation/workload.js';
import { workloadOf } from '../../../../shared/merge-queue/simulation/efficiency-benchmark.js';

const CURRENT = DEFAULT_SETTINGS;

const recorded: Workload = {
  pullRequests: Array.from({ length: 40 }, (_, i) => ({ arrivesAt: i * 4, breaks: i % 10 === 9 })),
  ciMinutes: [12],
  flakeRate: 0,
  seed: 3,
};

/** A store holding what the queue recorded while it played `w` with the current settings. */
async function recordedStore(outcome: WorkloadOutcome) {
  const store = inMemoryRepositories();
  for (const e of outcome.entries) await store.entries.insert(e);
  for (const r of outcome.runs) await store.testRuns.insert(r);
  return store;
}

describe('simulation: what-if on a history', () => {
  it('reads back arrivals, CI durations and breaking pull requests from the recorded runs', async () => {
    const outcome = await playWorkload(CURRENT, recorded);
    const store = await recordedStore(outcome);
    const now = new Date(Math.max(...outcome.entries.map((e) => e.stateChangedAt.getTime())) + 60_000);
    const h = await readQueueHistory(store, outcome.entries[0]!.queueId, now, { days: 30, maxPullRequests: 1000, maxRuns: 10_000 });
    expect(h.sampled).to.equal(false);
    expect(h.workload.pullRequests.map((p) => p.arrivesAt)).to.deep.equal(recorded.pullRequests.map((p) => p.arrivesAt));
    expect(h.workload.pullRequests.map((p) => p.breaks)).to.deep.equal(recorded.pullRequests.map((p) => p.breaks));
    expect([...new Set(h.workload.ciMinutes)]).to.deep.equal([12]);
    expect(h.workload.flakeRate).to.equal(0);
  });

  it('a failed pull request that merged unchanged when resubmitted was innocent: its failed run was a flake', () => {
    const ejected = entry(1, { state: 'failed', lastReason: 'test_run_required_status_failed', submittedAt: at(0) });
    const again = entry(1, { id: 'e1-again', seq: 2, state: 'merged', submittedAt: at(20) });
    const fixed = entry(3, { state: 'failed', lastReason: 'test_run_required_status_failed', prSha: 'old', submittedAt: at(30) });
    const fixedMerged = entry(3, { id: 'e3-again', seq: 4, state: 'merged', prSha: 'new', submittedAt: at(50) });
    const runs = [
      failed(run('r1', [1], [], { createdAt: at(0), concludedAt: at(10) })),
      { ...passed(run('r2', [], [], { entryIds: ['e1-again'], createdAt: at(20) })), concludedAt: at(30) },
      failed(run('r3', [3], [], { createdAt: at(30), concludedAt: at(40) })),
      { ...passed(run('r4', [], [], { entryIds: ['e3-again'], createdAt: at(50) })), concludedAt: at(60) },
    ];
    const { workload } = inferWorkload([ejected, again, fixed, fixedMerged], runs, new Map(), at(0));
    expect(workload.pullRequests.map((p) => p.breaks)).to.deep.equal([false, false, true, false]);
    expect(workload.flakeRate).to.equal(1 / 4);
  });

  it('samples the most recent pull requests past the limit, and says so', async () => {
    const outcome = await playWorkload(CURRENT, recorded);
    const store = await recordedStore(outcome);
    const now = new Date(Math.max(...outcome.entries.map((e) => e.stateChangedAt.getTime())) + 60_000);
    const h = await readQueueHistory(store, outcome.entries[0]!.queueId, now, { days: 30, maxPullRequests: 10, maxRuns: 10_000 });
    expect([h.sampled, h.workload.pullRequests.length]).to.deep.equal([true, 10]);
    expect(h.notes[0]).to.match(/most recent 10/);
  });

  it('replays the history under candidate settings side by side: more concurrency, shorter time in queue', async () => {
    const outcome = await playWorkload(CURRENT, { ...recorded, pullRequests: recorded.pullRequests.map((p, i) => ({ ...p, arrivesAt: i * 3 })) });
    const store = await recordedStore(outcome);
    const now = new Date(Math.max(...outcome.entries.map((e) => e.stateChangedAt.getTime())) + 60_000);
    const h = await readQueueHistory(store, outcome.entries[0]!.queueId, now, { days: 30, maxPullRequests: 1000, maxRuns: 10_000 });
    const report = await whatIf(h, CURRENT, [{ concurrency: 4 }]);
    expect(report.current.efficiency.timeInQueueMinutes.p50).to.equal(queueP50(outcome));
    expect(report.candidates[0]!.settings.concurrency).to.equal(4);
    expect(report.candidates[0]!.efficiency.timeInQueueMinutes.p50!).to.be.lessThan(report.current.efficiency.timeInQueueMinutes.p50!);
  });

  it('advises the lowest-latency settings with their numbers, and the cheapest within a latency bound', async () => {
    const h = { from: new Date(0), to: new Date(0), pullRequestsSeen: 40, sampled: false, notes: [], workload: recorded };
    const fast = await adviseSettings(h, CURRENT, { kind: 'lowest_latency' });
    expect(fast.best).to.not.equal(null);
    expect(fast.best!.efficiency.timeInQueueMinutes.p50!).to.be.at.most(fast.current.efficiency.timeInQueueMinutes.p50!);
    expect(fast.reasons.join('\n')).to.match(/advised: time in queue p50/);
    const bound = fast.best!.efficiency.timeInQueueMinutes.p50! * 2;
    const cheap = await adviseSettings(h, CURRENT, { kind: 'lowest_ci_cost', maxP50Minutes: bound });
    expect(cheap.best!.efficiency.timeInQueueMinutes.p50!).to.be.at.most(bound);
    expect(cheap.best!.efficiency.ciMinutesPerMerged!).to.be.at.most(fast.best!.efficiency.ciMinutesPerMerged!);
    const impossible = await adviseSettings(h, CURRENT, { kind: 'lowest_ci_cost', maxP50Minutes: 1 });
    expect(impossible.best).to.equal(null);
    expect(impossible.reasons.at(-1)).to.match(/^none of the \d+ settings tried meets p50 ≤ 1 min on this history$/);
  });

  it('a p95 bound as well: the cheapest setting within both, which may cost more CI than the p50 bound alone', async () => {
    // A busy queue (80 % of 4 runners, 5 % breaking, 3 % flaky runs): batching trades tail for CI.
    const busy = workloadOf({ load: 0.8, failureRate: 0.05, flakeRate: 0.03, ciMinutes: 10 }, 60, 1);
    const h = { from: new Date(0), to: new Date(0), pullRequestsSeen: 60, sampled: false, notes: [], workload: busy };
    const p95 = (o: SettingsOutcome): number => o.efficiency.timeInQueueMinutes.p95!;
    const maxP50Minutes = 15;
    const p50Only = await adviseSettings(h, CURRENT, { kind: 'lowest_ci_cost', maxP50Minutes }, { maxConcurrency: 4 });
    // A p95 bound just under what the p50 bound alone chose: that choice is ruled out.
    const maxP95Minutes = Math.floor(p95(p50Only.best!) - 1);
    const both = await adviseSettings(h, CURRENT, { kind: 'lowest_ci_cost', maxP50Minutes, maxP95Minutes }, { maxConcurrency: 4 });
    const within = both.tried.filter((o) => o.efficiency.timeInQueueMinutes.p50! <= maxP50Minutes && p95(o) <= maxP95Minutes);
    expect(within.length, 'this history has settings within both bounds').to.be.greaterThan(0);
    expect(p95(both.best!)).to.be.at.most(maxP95Minutes);
    expect(both.best!.settings).to.not.deep.equal(p50Only.best!.settings);
    expect(both.best!.efficiency.ciMinutesPerMerged!).to.equal(Math.min(...within.map((o) => o.efficiency.ciMinutesPerMerged!)));
    expect(both.best!.efficiency.ciMinutesPerMerged!).to.be.at.least(p50Only.best!.efficiency.ciMinutesPerMerged!);
    expect(both.reasons.at(-1)).to.include(`the fewest CI minutes with p50 ≤ ${maxP50Minutes} min and p95 ≤ ${maxP95Minutes} min`);
  });

  it('tries pressure batching (no wait) beside waits of a quarter and a tenth of CI, then refines the best with a bisection pool of one and a pending-failure hold', async () => {
    const grid = adviceGrid(CURRENT, [20], 4);
    expect(grid.filter((s) => s.concurrency === 4).map((s) => (s.batch ? `${s.batchingMinSize}/${s.batchingMaxWaitTimeMinutes}` : 'none'))).to.deep.equal([
      'none',
      '4/5',
      '4/2',
      '4/0',
      '8/5',
      '8/2',
      '8/0',
    ]);
    expect(
      adviceGrid(CURRENT, [3], 4)
        .filter((s) => s.concurrency === 4 && s.batchingMinSize === 4 && s.batch)
        .map((s) => s.batchingMaxWaitTimeMinutes),
      'one wait when both round to a minute',
    ).to.deep.equal([1, 0]);
    expect(grid.every((s) => s.bisectionConcurrency === s.concurrency && s.pendingFailureDepth === 0)).to.equal(true);
    const batched = grid.find((s) => s.batch && s.concurrency === 4)!;
    expect(refinements(batched).map((s) => [s.bisectionConcurrency, s.pendingFailureDepth, s.canOptimisticallyMerge])).to.deep.equal([
      [4, 1, true],
      [1, 0, false],
      [1, 1, true],
    ]);
    const unbatched = grid.find((s) => !s.batch && s.concurrency === 4)!;
    expect(refinements(unbatched).map((s) => [s.bisectionConcurrency, s.pendingFailureDepth])).to.deep.equal([[4, 1]]);
  });

  it('the advice replays the grid and the refinements of its best, no setting twice', async () => {
    const busy = workloadOf({ load: 0.8, failureRate: 0.05, flakeRate: 0.03, ciMinutes: 10 }, 30, 2);
    const h = { from: new Date(0), to: new Date(0), pullRequestsSeen: 30, sampled: false, notes: [], workload: busy };
    const tried = await playGrid(h, CURRENT, { kind: 'lowest_latency' }, { maxConcurrency: 4 });
    const grid = adviceGrid(CURRENT, busy.ciMinutes, 4);
    expect(tried.length).to.be.greaterThan(grid.length);
    expect(new Set(tried.map((o) => JSON.stringify(o.settings))).size).to.equal(tried.length);
    const fastest = [...tried.slice(0, grid.length)].sort(
      (a, b) =>
        a.efficiency.timeInQueueMinutes.p50! - b.efficiency.timeInQueueMinutes.p50! || a.efficiency.ciMinutesPerMerged! - b.efficiency.ciMinutesPerMerged!,
    )[0]!;
    for (const s of refinements(fastest.settings)) expect(tried.map((o) => o.settings)).to.deep.include(s);
  });
});

function queueP50(o: WorkloadOutcome): number {
  const t = o.entries
    .filter((e) => e.state === 'merged')
    .map((e) => (e.stateChangedAt.getTime() - e.submittedAt.getTime()) / 60_000)
    .sort((a, b) => a - b);
  return t[Math.ceil(t.length / 2) - 1]!;
}
