// Position and estimated time to merge of a submitted pull request: loads what is ahead and the
// queue's runs of the last day, and asks the pure estimate (domain/time-to-merge.ts).
import type { Entry, Queue } from '../domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../domain/model.js';
import { estimateTimeToMerge, runSamplesFromHistories, type RunSample, type TimeToMerge } from '../domain/time-to-merge.js';
import { orderForDisplay } from '../domain/queue-order.js';
import type { MergeQueueRepositories } from '../store/store.js';

/** How far back run durations and failures are read. */
const SAMPLE_WINDOW_MS = 24 * 3600 * 1000;

export interface QueueStanding {
  position: number;
  /** Null while nothing can be estimated: no run concluded in the last day, or the queue is paused. */
  timeToMerge: TimeToMerge | null;
}

/** The queue's runs of the last day, as entry histories record them: what every estimate of a run's duration reads. */
export async function recentRunSamples(store: Pick<MergeQueueRepositories, 'entries'>, queue: Queue, now: Date): Promise<RunSample[]> {
  const recent = await store.entries.listHistoriesChangedSince({ orgId: queue.orgId, queueIds: [queue.id] }, new Date(now.getTime() - SAMPLE_WINDOW_MS));
  return runSamplesFromHistories(recent.map((r) => r.history));
}

export class TimeToMergeService {
  constructor(private readonly deps: { store: Pick<MergeQueueRepositories, 'entries'> }) {}

  /** Null for an entry that has left the queue. */
  async standing(queue: Queue, entry: Entry, now = new Date()): Promise<QueueStanding | null> {
    if (TERMINAL_ENTRY_STATES.includes(entry.state)) return null;
    return (await this.standings(queue, now, entry.id)).get(entry.id) ?? null;
  }

  /**
   * Every active entry's standing, by entry id, from one read of the queue and its recent runs;
   * with `only`, that entry's alone (one pull request's status estimates no other).
   */
  async standings(queue: Queue, now = new Date(), only?: string): Promise<Map<string, QueueStanding>> {
    const ordered = orderForDisplay(await this.deps.store.entries.listActive(queue.id));
    const out = new Map<string, QueueStanding>();
    const samples = queue.state === 'paused' ? [] : await recentRunSamples(this.deps.store, queue, now);
    // The runs going at or ahead of each entry, once each (a batch's entries share one), in queue order.
    const running = new Map<string, number>();
    for (const [i, e] of ordered.entries()) {
      const since = e.currentRunId && e.state !== 'pending' ? e.history.findLast((h) => h.to === 'testing')?.at : undefined;
      if (e.currentRunId && since && !running.has(e.currentRunId)) running.set(e.currentRunId, (now.getTime() - since.getTime()) / 1000);
      if (only !== undefined && e.id !== only) continue;
      const position = i + 1;
      if (queue.state === 'paused' || e.state === 'not_ready') {
        out.set(e.id, { position, timeToMerge: null });
        if (only !== undefined) break;
        continue;
      }
      const timeToMerge = estimateTimeToMerge({
        position,
        concurrency: queue.concurrency,
        groupSize: queue.batch ? queue.batchingMinSize : 1,
        samples,
        runningElapsedSeconds: [...running.values()],
      });
      out.set(e.id, { position, timeToMerge });
      if (only !== undefined) break;
    }
    return out;
  }
}
