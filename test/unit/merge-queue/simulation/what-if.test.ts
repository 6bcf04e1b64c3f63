// A queue's history read back as a workload, replayed under other settings, and settings advice.
import { expect } from 'chai';
import { inMemoryRepositories } from '../../../../shared/merge-queue/simulation/in-memory-repositories.js';
import { inferWorkload, readQueueHistory } from '../../../../shared/merge-queue/simulation/queue-history.js';
import { at, entry, failed, passed, run } from '../../../../shared/merge-queue/simulation/builders.js';
import { adviseSettings } from '../../../../shared/merge-queue/simulation/settings-advice.js';
import { DEFAULT_SETTINGS, whatIf } from '../../../../shared/merge-queue/simulation/what-if.js';
import { playWorkload, type Workload, type WorkloadOutcome } from '../../../../shared/merge-queue/simulation/workload.js';

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
  });
});

function queueP50(o: WorkloadOutcome): number {
  const t = o.entries
    .filter((e) => e.state === 'merged')
    .map((e) => (e.stateChangedAt.getTime() - e.submittedAt.getTime()) / 60_000)
    .sort((a, b) => a - b);
  return t[Math.ceil(t.length / 2) - 1]!;
}
