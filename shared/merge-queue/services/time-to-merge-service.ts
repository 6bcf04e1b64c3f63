// Position and estimated time to merge of a submitted pull request: loads what is ahead and the
// queue's runs of the last day, and asks the pure estimate (domain/time-to-merge.ts).
import type { Entry, Queue } from '../domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../domain/model.js';
import { estimateTimeToMerge, queuePosition, runSamplesFromHistories, type TimeToMerge } from '../domain/time-to-merge.js';
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
    const position = queuePosition(entry, await this.deps.store.entries.listActive(queue.id));
    if (position === null) return null;
    if (queue.state === 'paused' || entry.state === 'not_ready') return { position, timeToMerge: null };
    const recent = await this.deps.store.entries.listHistoriesChangedSince({ orgId: queue.orgId, queueIds: [queue.id] }, new Date(now.getTime() - SAMPLE_WINDOW_MS));
    const testingSince = entry.state === 'testing' || entry.state === 'tests_passed' ? entry.history.findLast((h) => h.to === 'testing')?.at : undefined;
    const timeToMerge = estimateTimeToMerge({
      position,
      concurrency: queue.concurrency,
      groupSize: queue.batch ? queue.batchingMinSize : 1,
      samples: runSamplesFromHistories(recent.map((r) => r.history)),
      elapsedSeconds: testingSince ? (now.getTime() - testingSince.getTime()) / 1000 : 0,
    });
    return { position, timeToMerge };
  }
}
