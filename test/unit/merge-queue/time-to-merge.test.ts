import { expect } from 'chai';
import { aheadOf, estimateTimeToMerge, runSamplesFromHistories, type RunSample } from '../../../shared/merge-queue/domain/time-to-merge.js';
import type { HistoryEntry } from '../../../shared/merge-queue/domain/model.js';
import { at, entry } from '../../../shared/merge-queue/simulation/builders.js';

const passed = (...seconds: number[]): RunSample[] => seconds.map((durationSeconds) => ({ durationSeconds, failed: false }));

describe('time to merge', () => {
  it('counts rounds of the concurrency from the quantiles of recent durations', () => {
    const samples = passed(600, 1200, 1800, 2400, 3000);
    expect(estimateTimeToMerge({ position: 3, concurrency: 1, groupSize: 1, samples, runningElapsedSeconds: [] })).to.deep.equal({
      estimate: 5400,
      low: 3600,
      high: 8280,
    });
    // Three at once: the third is in the first round.
    expect(estimateTimeToMerge({ position: 3, concurrency: 3, groupSize: 1, samples, runningElapsedSeconds: [] })).to.deep.equal({
      estimate: 1800,
      low: 1200,
      high: 2760,
    });
    // Batches of four, two at a time: eight pull requests per round.
    expect(estimateTimeToMerge({ position: 9, concurrency: 2, groupSize: 4, samples, runningElapsedSeconds: [] })?.estimate).to.equal(3600);
  });

  it('adds a round for each failure expected ahead, and a bad day to the high end', () => {
    const samples = [...passed(...Array<number>(8).fill(1200)), { durationSeconds: 1200, failed: true }, { durationSeconds: 1200, failed: true }];
    // rate 0.2, 4 ahead: 0.8 failures expected, 0.8 + 2·√(4·0.2·0.8) = 2.4 on a bad day; 3 rounds.
    expect(estimateTimeToMerge({ position: 5, concurrency: 2, groupSize: 1, samples, runningElapsedSeconds: [] })).to.deep.equal({
      estimate: 4560,
      low: 3600,
      high: 6480,
    });
    // Nothing ahead: failures of others cannot delay the next to merge.
    expect(estimateTimeToMerge({ position: 1, concurrency: 1, groupSize: 1, samples, runningElapsedSeconds: [] })).to.deep.equal({
      estimate: 1200,
      low: 1200,
      high: 1200,
    });
  });

  it('starts a group when the first slot frees up: runs already going finish first', () => {
    // Three runs going (1500 s, 600 s and just started) of 1800 s: the fourth starts when the first merges.
    const samples = passed(1800, 1800, 1800);
    expect(estimateTimeToMerge({ position: 4, concurrency: 3, groupSize: 1, samples, runningElapsedSeconds: [1500, 600, 0] })).to.deep.equal({
      estimate: 2100,
      low: 2100,
      high: 2100,
    });
    // Merges keep queue order: a run that finishes early still waits for the ones ahead.
    expect(estimateTimeToMerge({ position: 2, concurrency: 2, groupSize: 1, samples, runningElapsedSeconds: [0, 1700] })?.estimate).to.equal(1800);
  });

  it('subtracts the time its run has been going, never below zero, and has no estimate without history', () => {
    const samples = passed(600, 1200, 1800);
    expect(estimateTimeToMerge({ position: 1, concurrency: 1, groupSize: 1, samples, runningElapsedSeconds: [1000] })).to.deep.equal({
      estimate: 200,
      low: 0,
      high: 680,
    });
    expect(estimateTimeToMerge({ position: 1, concurrency: 1, groupSize: 1, samples, runningElapsedSeconds: [5000] })).to.deep.equal({
      estimate: 0,
      low: 0,
      high: 0,
    });
    expect(estimateTimeToMerge({ position: 1, concurrency: 1, groupSize: 1, samples: [], runningElapsedSeconds: [] })).to.equal(null);
  });

  it('places entries in the order the queue shows them: under test first, then pending by priority, not ready last', () => {
    const active = [
      entry(1, { state: 'not_ready', seq: 1 }),
      entry(2, { state: 'pending', seq: 2 }),
      entry(3, { state: 'testing', seq: 3 }),
      entry(4, { state: 'pending', seq: 4, priorityValue: 0 }),
    ];
    expect(active.map((e) => aheadOf(e, active)?.length)).to.deep.equal([4, 3, 1, 2]);
    expect(aheadOf(active[1]!, active)?.map((e) => e.prNumber)).to.deep.equal([3, 4, 2]);
    expect(aheadOf(entry(9), active)).to.equal(null);
  });

  it('reads run durations and outcomes from histories, skipping restarted and cancelled runs', () => {
    const h = (minute: number, from: HistoryEntry['from'], to: HistoryEntry['to'], reason: HistoryEntry['reason']): HistoryEntry => ({
      at: at(minute),
      from,
      to,
      reason,
    });
    const samples = runSamplesFromHistories([
      [
        h(0, null, 'pending', 'api_requested'),
        h(1, 'pending', 'testing', 'test_run_started'),
        h(21, 'testing', 'tests_passed', 'test_run_passed'),
        h(22, 'tests_passed', 'merged', 'merge_graph_merge'),
      ],
      [
        h(0, null, 'pending', 'api_requested'),
        h(2, 'pending', 'testing', 'test_run_started'),
        h(5, 'testing', 'pending', 'tests_restarted_by_user'),
        h(6, 'pending', 'testing', 'test_run_started'),
        h(36, 'testing', 'failed', 'test_run_required_status_failed'),
      ],
      [h(0, null, 'pending', 'api_requested'), h(1, 'pending', 'testing', 'test_run_started'), h(9, 'testing', 'cancelled', 'user_requested')],
    ]);
    expect(samples).to.deep.equal([
      { durationSeconds: 1200, failed: false },
      { durationSeconds: 1800, failed: true },
    ]);
  });
});
