// What a queue did since a moment, read from stored history: the pull requests it merged (with
// when they were submitted), those that failed out of it with their failure's verdict, the runs it
// started, and the pull request at its head now. The objective watcher measures objectives from
// it; the digest summarises a period with it.
import type { ObjectiveFacts } from '../domain/objectives.js';
import type { Entry, Queue, TestRun } from '../domain/model.js';
import { orderForDisplay } from '../domain/queue-order.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { VerdictService } from './verdict-service.js';

/** Runs read at most (a queue's runs within its longest window). */
const MAX_RUNS = 100_000;

export interface QueueHistoryDeps {
  store: Pick<MergeQueueRepositories, 'entries' | 'testRuns'>;
  verdicts: Pick<VerdictService, 'of'>;
}

/** What the objectives measure, and the runs it was read from (a digest also looks into the failed ones). */
export interface QueueHistory {
  facts: ObjectiveFacts;
  runs: TestRun[];
}

export async function readQueueHistory(deps: QueueHistoryDeps, queue: Queue, since: Date): Promise<QueueHistory> {
  const { store } = deps;
  const rows = await store.entries.listHistoriesChangedSince({ orgId: queue.orgId, queueIds: [queue.id] }, since);
  const merged: ObjectiveFacts['merged'] = [];
  const failedIds: string[] = [];
  for (const r of rows) {
    // The transition into the final state, not a timeline note recorded after it.
    const ended = r.history.findLast((h) => h.from !== h.to);
    // The stored history is shared (EntryHistoryRow): keep copies of its dates.
    if (ended?.to === 'merged' && r.history[0]) merged.push({ submittedAt: new Date(r.history[0].at), mergedAt: new Date(ended.at) });
    if (ended?.to === 'failed') failedIds.push(r.id);
  }
  const failed = await store.entries.findByIds(failedIds);
  const ejections = await Promise.all(
    failed.map(async (e: Entry) => ({ at: e.stateChangedAt, verdict: (await deps.verdicts.of(queue, e))?.kind ?? 'unknown' })),
  );
  const head = orderForDisplay(await store.entries.listActive(queue.id)).find((e) => e.state !== 'not_ready');
  const runs = await store.testRuns.listCreatedSince(queue.id, since, MAX_RUNS);
  return { facts: { merged, headSubmittedAt: head?.submittedAt ?? null, runsCreatedAt: runs.map((r) => r.createdAt), ejections }, runs };
}
