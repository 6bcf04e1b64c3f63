// Queue health buckets: exits land in the bucket of their transition, time in queue counts only
// admitted time, percentiles are nearest-rank, and runs per merge spans the whole window.
import { expect } from 'chai';
import { computeQueueHealth } from '../../../../shared/merge-queue/domain/metrics/queue-health.js';
import { observeEntry } from '../../../../shared/merge-queue/domain/metrics/entry-observations.js';
import type { EntryState, HistoryEntry, Reason } from '../../../../shared/merge-queue/domain/model.js';
import { rng } from '../../../../shared/platform/seeded-random.js';

const END = new Date('2026-11-23T12:00:00Z');
const at = (minutesBeforeEnd: number) => new Date(END.getTime() - minutesBeforeEnd * 60_000);
const step = (min: number, from: EntryState | null, to: EntryState, reason: Reason): HistoryEntry => ({ at: at(min), from, to, reason });

/** Submitted, ready `waitMin` later… then merged (or failed) at `endMin` before the end. */
function entry(startMin: number, readyMin: number, endMin: number, end: 'merged' | 'failed'): HistoryEntry[] {
  return [
    step(startMin, null, 'not_ready', 'api_requested'),
    step(readyMin, 'not_ready', 'pending', 'merge_item_now_ready'),
    step(readyMin - 1, 'pending', 'testing', 'test_run_started'),
    end === 'merged' ? step(endMin, 'testing', 'merged', 'merge_graph_merge') : step(endMin, 'testing', 'failed', 'test_run_required_status_failed'),
  ];
}

describe('queue health', () => {
  it('buckets exits, takes nearest-rank percentiles of admitted time, and counts failures by reason', () => {
    const h = computeQueueHealth({
      histories: [
        { history: entry(100, 90, 80, 'merged'), mergedTestedTree: 'tree1' }, // 10 min admitted, ends in bucket 0 (120–60 min before the end)
        { history: entry(50, 40, 10, 'merged') }, // 30 min, bucket 1; recorded before tested trees were
        { history: entry(50, 45, 30, 'merged'), mergedTestedTree: null }, // 15 min, bucket 1; its tree was not checked
        { history: entry(40, 35, 5, 'failed') }, // bucket 1
        { history: entry(300, 290, 200, 'merged'), mergedTestedTree: 'tree0' }, // before the window
      ],
      testRunsCreatedAt: [at(91), at(41), at(46), at(36), at(36), at(500)],
      end: END,
      windowSeconds: 2 * 3600,
      bucketCount: 2,
    });
    expect(h.bucketSeconds).to.equal(3600);
    expect(h.buckets.map((b) => [b.merged, b.failed, b.testRuns])).to.deep.equal([
      [1, 0, 1],
      [2, 1, 4],
    ]);
    expect(h.buckets[0]).to.include({ timeInQueueP50: 600, timeInQueueP90: 600 });
    expect(h.buckets[1]).to.include({ timeInQueueP50: 900, timeInQueueP90: 1800 });
    expect(h.failuresByReason).to.deep.equal([{ reason: 'test_run_required_status_failed', count: 1 }]);
    expect(h.merged).to.equal(3);
    expect(h.testRuns).to.equal(5);
    expect(h.ciRunsPerMergedPr).to.equal(5 / 3);
    expect(h.mergedCommits).to.deep.equal({ tested: 1, untested: 2 });
    expect(h.windowStart).to.equal('2026-11-23T10:00:00.000Z');
  });

  it('agrees with every bucket observed on its own, transitions on the bucket bounds included', () => {
    // 7 hours in 3 buckets: bounds at a fraction of a millisecond, where a division may round
    // a time into the neighbouring bucket.
    const windowSeconds = 7 * 3600;
    const bucketCount = 3;
    const bucketMs = (windowSeconds * 1000) / bucketCount;
    const startMs = END.getTime() - windowSeconds * 1000;
    const random = rng(42);
    const bounds = Array.from({ length: bucketCount + 1 }, (_, i) => Math.round(startMs + i * bucketMs));
    const timeAt = (): number =>
      random() < 0.3 ? bounds[Math.floor(random() * bounds.length)]! + Math.floor(random() * 3) - 1 : startMs - 3_600_000 + random() * 9 * 3_600_000;
    const histories = Array.from({ length: 300 }, () => {
      const times = Array.from({ length: 6 }, timeAt).sort((a, b) => a - b);
      const end: [EntryState, Reason] =
        random() < 0.7 ? ['merged', 'merge_graph_merge'] : random() < 0.5 ? ['failed', 'test_run_failed'] : ['cancelled', 'user_requested'];
      const history: HistoryEntry[] = [
        { at: new Date(times[0]!), from: null, to: 'pending', reason: 'api_requested' },
        { at: new Date(times[1]!), from: 'pending', to: 'testing', reason: 'test_run_started' },
        { at: new Date(times[2]!), from: 'testing', to: 'pending', reason: 'prerequisite_merge_item_failed' },
        { at: new Date(times[3]!), from: 'pending', to: 'testing', reason: 'test_run_started' },
        { at: new Date(times[4]!), from: 'testing', to: end[0], reason: end[1] },
      ];
      return { history, mergedTestedTree: random() < 0.5 ? 'tree' : null };
    });
    const testRunsCreatedAt = Array.from({ length: 200 }, () => new Date(timeAt()));
    const h = computeQueueHealth({ histories, testRunsCreatedAt, end: END, windowSeconds, bucketCount });

    const expected = Array.from({ length: bucketCount }, (_, i) => {
      const window = { start: startMs + i * bucketMs, end: startMs + (i + 1) * bucketMs };
      const counts = { merged: 0, failed: 0, cancelled: 0, restarts: 0 };
      for (const { history } of histories) {
        const o = observeEntry(history, window);
        counts.restarts += o.restarts.length;
        if (o.exit) counts[o.exit.conclusion] += 1;
      }
      const testRuns = testRunsCreatedAt.filter((d) => d.getTime() > window.start && d.getTime() <= window.end).length;
      return { ...counts, testRuns };
    });
    expect(h.buckets.map(({ merged, failed, cancelled, restarts, testRuns }) => ({ merged, failed, cancelled, restarts, testRuns }))).to.deep.equal(expected);
    expect(expected.reduce((n, b) => n + b.merged + b.failed + b.cancelled, 0)).to.be.above(100);
    expect(expected.reduce((n, b) => n + b.restarts, 0)).to.be.above(50);
  });

  it('has null percentiles and runs per merge without merges', () => {
    const h = computeQueueHealth({ histories: [], testRunsCreatedAt: [at(5)], end: END, windowSeconds: 3600, bucketCount: 4 });
    expect(h.buckets).to.have.length(4);
    expect(h.buckets.every((b) => b.timeInQueueP50 === null && b.timeInQueueP90 === null)).to.equal(true);
    expect(h.ciRunsPerMergedPr).to.equal(null);
    expect(h.buckets[3]!.testRuns).to.equal(1);
  });
});
