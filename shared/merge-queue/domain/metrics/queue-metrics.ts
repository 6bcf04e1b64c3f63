// Builds every series of GET /v1/getMergeQueueMetrics from what the store holds: the state of
// every active entry, and the histories of entries that changed in the last hour (an entry whose
// last transition is older than the window contributes nothing to it).
import type { EntryState, HistoryEntry, TestRunKind } from '../model.js';
import type { RepoRef } from '../../../platform/repo-ref.js';
import { repoSlug } from '../../../platform/repo-ref.js';
import { ADMITTED } from '../planner/entry-states.js';
import { isQueueMerge, observeEntry, type Window } from './entry-observations.js';
import { WASTE_CAUSES, wastedRunsByCause } from './cost-report.js';
import { QUEUE_TYPES, WINDOW_MS, emptySeries, type QueueObjectiveLevel, type QueueType, type QueueTypeSeries } from './series.js';

export interface MetricsQueue {
  id: string;
  repo: RepoRef;
  branch: string;
  /** CI's results for the target branch's head show tests failing there (domain/target-health.ts). */
  targetBroken?: boolean;
  /** Its objectives' levels as last measured (domain/objectives.ts). */
  objectives?: readonly QueueObjectiveLevel[];
}

/** An active entry of a queue: its state, and whether it takes part in a bisection. */
export interface ActiveEntry {
  queueId: string;
  state: EntryState;
  inBisection: boolean;
}

export interface EntryHistory {
  queueId: string;
  history: readonly HistoryEntry[];
  /** The tree its merge was checked to produce (Entry.mergedTestedTree); null or absent: not checked. */
  mergedTestedTree?: string | null;
}

export interface MergeQueueMetricsInput {
  queues: readonly MetricsQueue[];
  activeEntries: readonly ActiveEntry[];
  /** Entries whose last transition is in the window (others may be included; they add nothing). */
  recentEntries: readonly EntryHistory[];
  /** Runs in progress the stall watchdog flagged, with the contexts still unreported. */
  stalledRuns?: readonly { queueId: string; kind: TestRunKind; missing: readonly string[] }[];
  now: Date;
}

export function metricsWindow(now: Date): Window {
  return { start: now.getTime() - WINDOW_MS, end: now.getTime() };
}

/**
 * One series per (repo, branch, queue_type), both queue types for every queue, sorted by repo,
 * branch, then main before bisection. Two queues with the same `owner/name` and branch on
 * different hosts share their label set, so their values add up (scrape with `repoHost` to tell
 * them apart).
 */
export function computeMergeQueueMetrics(input: MergeQueueMetricsInput): QueueTypeSeries[] {
  const byQueue = new Map<string, Record<QueueType, QueueTypeSeries>>();
  const byLabels = new Map<string, Record<QueueType, QueueTypeSeries>>();
  for (const q of input.queues) {
    const repo = repoSlug(q.repo);
    const key = `${repo}\u0000${q.branch}`;
    let pair = byLabels.get(key);
    if (!pair) {
      pair = {
        main: emptySeries({ repo, branch: q.branch, queue_type: 'main' }),
        bisection: emptySeries({ repo, branch: q.branch, queue_type: 'bisection' }),
      };
      byLabels.set(key, pair);
    }
    byQueue.set(q.id, pair);
    if (q.targetBroken) pair.main.targetBranchBroken = 1;
    pair.main.objectives.push(...(q.objectives ?? []));
  }

  for (const e of input.activeEntries) {
    const s = byQueue.get(e.queueId)?.[e.inBisection ? 'bisection' : 'main'];
    if (!s) continue;
    if (ADMITTED.includes(e.state)) s.depth += 1;
    if (e.state === 'not_ready') s.awaitingMergeability += 1;
    if (e.state === 'testing') s.testingSlotsActive += 1;
  }

  for (const r of input.stalledRuns ?? []) {
    const s = byQueue.get(r.queueId)?.[r.kind === 'bisection' ? 'bisection' : 'main'];
    if (s && r.missing.length > 0) s.testRunsStatusNotReported += 1;
  }

  const window = metricsWindow(input.now);
  for (const [queueId, histories] of groupBy(input.recentEntries)) {
    const s = byQueue.get(queueId)?.main;
    if (!s) continue;
    const wasted = wastedRunsByCause(histories, window);
    for (const cause of WASTE_CAUSES) s.wastedRuns[cause] += wasted[cause];
  }
  for (const e of input.recentEntries) {
    const pair = byQueue.get(e.queueId);
    if (!pair) continue;
    const o = observeEntry(e.history, window);
    for (const w of o.waits) pair[w.queueType].waitSeconds.push(w.seconds);
    for (const t of o.tests) pair[t.queueType].testSeconds.push(t.seconds);
    for (const r of o.restarts) pair[r].restarts += 1;
    if (o.exit) {
      const s = pair[o.exit.queueType];
      s.conclusions[o.exit.conclusion] += 1;
      if (o.exit.conclusion === 'merged' && isQueueMerge(e.history.at(-1)?.reason)) {
        pair.main.mergedCommits[e.mergedTestedTree ? 'tested' : 'untested'] += 1;
      }
      if (o.exit.timeInQueueSeconds !== null) s.timeInQueueSeconds.push(o.exit.timeInQueueSeconds);
    }
  }

  const keys = [...byLabels.keys()].sort();
  return keys.flatMap((k) => QUEUE_TYPES.map((t) => (byLabels.get(k) as Record<QueueType, QueueTypeSeries>)[t]));
}

function groupBy(entries: readonly EntryHistory[]): Map<string, (readonly HistoryEntry[])[]> {
  const out = new Map<string, (readonly HistoryEntry[])[]>();
  for (const e of entries) out.set(e.queueId, [...(out.get(e.queueId) ?? []), e.history]);
  return out;
}
