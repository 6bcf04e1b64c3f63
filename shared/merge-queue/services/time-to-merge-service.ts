// Position and estimated time to merge of a submitted pull request: loads what is ahead and the
// queue's runs of the last day, and asks the pure estimate (domain/time-to-merge.ts).
import type { Entry, Queue } from '../domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../domain/model.js';
import { aheadOf, estimateTimeToMerge, runSamplesFromHistories, type TimeToMerge } from '../domain/time-to-merge.js';
import type { MergeQueueRepositories } from '../store/store.js';

/** How far back run durations and failures are read. */
const SAMPLE_WINDOW_MS = 24 * 3600 * 1000;

export interface QueueStanding {
  position: number;
  /** Null while nothing can be estimated: no run concluded in the last day, or the queue is paused. */
  timeToMerge: TimeToMerge | null;
}

export class TimeToMergeService {
  constructor(private readonly deps: { store: Pick<MergeQueueRepositories, 'entries'> }) {}

  /** Null for an entry that has left the queue. */
  async standing(queue: Queue, entry: Entry, now = new Date()): Promise<QueueStanding | null> {
    if (TERMINAL_ENTRY_STATES.includes(entry.state)) return null;
    const ahead = aheadOf(entry, await this.deps.store.entries.listActive(queue.id));
    if (!ahead) return null;
    const position = ahead.length;
    if (queue.state === 'paused' || entry.state === 'not_ready') return { position, timeToMerge: null };
    const recent = await this.deps.store.entries.listHistoriesChangedSince(
      { orgId: queue.orgId, queueIds: [queue.id] },
      new Date(now.getTime() - SAMPLE_WINDOW_MS),
    );
    // The runs going at or ahead of it, once each (a batch's entries share one), in queue order.
    const running = new Map<string, number>();
    for (const e of ahead) {
      const since = e.currentRunId && e.state !== 'pending' ? e.history.findLast((h) => h.to === 'testing')?.at : undefined;
      if (e.currentRunId && since && !running.has(e.currentRunId)) running.set(e.currentRunId, (now.getTime() - since.getTime()) / 1000);
    }
    const timeToMerge = estimateTimeToMerge({
      position,
      concurrency: queue.concurrency,
      groupSize: queue.batch ? queue.batchingMinSize : 1,
      samples: runSamplesFromHistories(recent.map((r) => r.history)),
      runningElapsedSeconds: [...running.values()],
    });
    return { position, timeToMerge };
  }
}
