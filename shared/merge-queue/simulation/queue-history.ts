// A queue's recorded history as a workload to replay: when pull requests entered the queue, how
// long CI took, which pull requests broke the build, how often CI failed for nothing, and when
// the target branch moved outside the queue. A pull request the queue failed is taken to break
// the build unless the same head merged when resubmitted; an innocent one ejected by a flake and
// never resubmitted is counted as breaking, so the flake rate is a lower bound. Read through the repositories' named queries,
// bounded: past `maxPullRequests` only the most recent ones are replayed (a contiguous stretch,
// so arrival rates stay true), and the history says so.
import type { Entry, Reason, TestRun } from '../domain/model.js';
import type { ImpactedTargetSet } from '../domain/planner/types.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { headKey } from '../store/impacted-targets-repository.js';
import type { Workload } from './workload.js';

export interface HistoryLimits {
  days: number;
  maxPullRequests: number;
  maxRuns: number;
}

export interface QueueHistory {
  from: Date;
  to: Date;
  workload: Workload;
  /** Pull requests that ended merged or failed in the window (before sampling). */
  pullRequestsSeen: number;
  /** True when more pull requests ended in the window than were replayed. */
  sampled: boolean;
  /** What was inferred, and what was left out, in words. */
  notes: string[];
}

const MINUTE = 60_000;
/** Failures that say the pull request's change is at fault (not the user, not the forge). */
const OWN_FAILURES: ReadonlySet<Reason> = new Set<Reason>([
  'test_run_required_status_failed',
  'test_run_timeout',
  'start_test_run_merge_conflict',
  'test_run_failed_by_optimization',
]);
/** When history has no finished run, CI is taken to take this long. */
const DEFAULT_CI_MINUTES = 30;

export type HistoryRepositories = Pick<MergeQueueRepositories, 'entries' | 'testRuns' | 'impactedTargets'>;

export async function readQueueHistory(store: HistoryRepositories, queueId: string, now: Date, limits: HistoryLimits): Promise<QueueHistory> {
  const from = new Date(now.getTime() - limits.days * 24 * 60 * MINUTE);
  // listPage returns newest first: one more than the limit tells whether the window holds more.
  const page = await store.entries.listPage(queueId, { states: ['merged', 'failed'], changedSince: from, limit: limits.maxPullRequests + 1 });
  const sampled = page.length > limits.maxPullRequests;
  const entries = page.slice(0, limits.maxPullRequests).filter((e) => e.submittedAt >= from);
  const runs = await store.testRuns.listCreatedSince(queueId, from, limits.maxRuns);
  const uploads = await store.impactedTargets.getMany(
    queueId,
    entries.map((e) => ({ prNumber: e.prNumber, sha: e.prSha })),
  );
  const targets = new Map<string, ImpactedTargetSet>();
  for (const e of entries) {
    const t = uploads.get(headKey({ prNumber: e.prNumber, sha: e.prSha }));
    if (t !== undefined) targets.set(e.id, t);
  }
  const history = inferWorkload(entries, runs, targets, from);
  if (sampled) history.notes.unshift(`more than ${limits.maxPullRequests} pull requests ended in the window: the most recent ${entries.length} are replayed`);
  return { from, to: now, pullRequestsSeen: page.length, sampled, ...history };
}

/** The workload a history describes (pure: the entries and runs are given). */
export function inferWorkload(
  entries: Entry[],
  runs: TestRun[],
  targets: ReadonlyMap<string, ImpactedTargetSet>,
  from: Date,
): { workload: Workload; notes: string[] } {
  const notes: string[] = [];
  const ordered = [...entries].sort((a, b) => a.submittedAt.getTime() - b.submittedAt.getTime() || a.seq - b.seq);
  const start = ordered[0]?.submittedAt.getTime() ?? from.getTime();
  const finished = runs.filter(
    (r) => r.concludedAt && (r.status === 'succeeded' || (r.status === 'failed' && r.conclusionReason !== 'start_test_run_merge_conflict')),
  );
  const ciMinutes = finished.map((r) => Math.max(1, Math.round((r.concludedAt!.getTime() - r.createdAt.getTime()) / MINUTE)));
  if (ciMinutes.length === 0) notes.push(`no finished CI run in the window: CI is taken to take ${DEFAULT_CI_MINUTES} minutes`);
  // A failed pull request resubmitted unchanged (same head) that then merged was innocent.
  const mergedHeads = new Set(entries.filter((e) => e.state === 'merged').map((e) => `${e.prNumber}@${e.prSha}`));
  const innocent = (e: Entry): boolean => mergedHeads.has(`${e.prNumber}@${e.prSha}`);
  // A failed run whose pull requests all merged later, or were innocent, failed for nothing: a flake.
  const byId = new Map(entries.map((e) => [e.id, e]));
  const failedRuns = finished.filter((r) => r.status === 'failed');
  const flaky = failedRuns.filter((r) =>
    [...r.baseEntryIds, ...r.entryIds].every((id) => {
      const e = byId.get(id);
      return e !== undefined && (e.state === 'merged' || innocent(e));
    }),
  );
  const flakeRate = finished.length > 0 ? flaky.length / finished.length : 0;
  const pullRequests = ordered.map((e) => {
    const t = targets.get(e.id);
    return {
      arrivesAt: (e.submittedAt.getTime() - start) / MINUTE,
      breaks: e.state === 'failed' && OWN_FAILURES.has(e.lastReason) && !innocent(e),
      ...(t !== undefined ? { impactedTargets: t } : {}),
    };
  });
  const userFailed = ordered.filter((e) => e.state === 'failed' && !OWN_FAILURES.has(e.lastReason)).length;
  if (userFailed > 0) notes.push(`${userFailed} pull requests failed for reasons outside CI; they are replayed as good changes`);
  // Runs cut short by a push to the target branch mark the pushes (one per distinct minute).
  const pushMinutes = new Set(
    runs
      .filter((r) => r.conclusionReason === 'manual_push_to_target_branch' && r.concludedAt)
      .map((r) => Math.round((r.concludedAt!.getTime() - start) / MINUTE)),
  );
  const outsidePushes = [...pushMinutes].filter((m) => m >= 0).sort((a, b) => a - b);
  notes.push(
    `${pullRequests.length} pull requests, ${pullRequests.filter((p) => p.breaks).length} breaking; ${finished.length} finished CI runs, ` +
      `flake rate ${(flakeRate * 100).toFixed(1)} % (failed runs whose pull requests all merged later, or merged unchanged when resubmitted); ${outsidePushes.length} pushes outside the queue`,
  );
  return { workload: { pullRequests, ciMinutes: ciMinutes.length > 0 ? ciMinutes : [DEFAULT_CI_MINUTES], flakeRate, outsidePushes, seed: 1 }, notes };
}
