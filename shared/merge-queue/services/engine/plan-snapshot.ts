// Loads what the planner needs about one queue: entries, runs, the target head, impacted targets,
// direct-merge facts and the required statuses at the target head. All I/O of a planning round
// before the pure plan() call happens here, in a bounded number of reads whatever the queue's
// length (lists by queue, then by id sets).
import type { Entry, Queue, TestRun } from '../../domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../../domain/model.js';
import type { DirectMergeFacts, ImpactedTargetSet, PlanInput } from '../../domain/planner/index.js';
import { resolveRequiredStatuses, type ResolvedRequiredStatuses } from '../../domain/required-status-sources.js';
import { evaluateRequiredStatuses } from '../../domain/required-statuses.js';
import { repoKey } from '../../../platform/repo-ref.js';
import type { GitProvider } from '../provider.js';
import { readTrunkRequiredStatuses } from '../../domain/trunk-config.js';
import type { MergeQueueRepositories } from '../../store/store.js';
import type { RunTestEvidence } from '../../domain/flaky-retest.js';
import { runEvidence, type RunTestResultsSource } from '../run-test-results.js';
import { headKey } from '../../store/impacted-targets-repository.js';
import { typicalRunSeconds } from '../../domain/time-to-merge.js';
import { recentRunSamples } from '../time-to-merge-service.js';
import type { ScheduleSource } from '../schedule-source.js';
import type { ChangedPathsSource } from '../changed-paths-source.js';
import type { PathLanesSource } from '../path-lanes-source.js';
import { laneCaps, laneTargets } from '../../domain/path-lanes.js';
import { scopedByPaths, scopedByTargets } from '../../domain/merge-schedule.js';

export type SnapshotRepositories = Pick<MergeQueueRepositories, 'entries' | 'testRuns' | 'impactedTargets' | 'commitStatuses'>;

export interface Snapshot {
  input: PlanInput;
  required: ResolvedRequiredStatuses;
  /** Parallel mode: why `merge.lanes` at the target head cannot be used; null when it can, is absent, or the queue is not parallel. */
  lanesProblem: string | null;
}

/** Where a snapshot reads what is not in the store: test results, and what the repository's files and the forge say. */
export interface SnapshotSources {
  testResults: RunTestResultsSource;
  schedules: ScheduleSource;
  changedPaths: ChangedPathsSource;
  lanes: PathLanesSource;
}

export async function loadSnapshot(store: SnapshotRepositories, queue: Queue, provider: GitProvider, sources: SnapshotSources, now: Date): Promise<Snapshot> {
  const { testResults, schedules, changedPaths } = sources;
  const targetSha = await provider.branchHead(queue.repo, queue.branch);
  const active = await store.entries.listActive(queue.id);
  const runs = await relevantRuns(store, queue.id, active);
  const entries = await withReferencedEntries(store, queue, active, runs);
  const required = await requiredStatusesAt(queue, provider, targetSha);
  // The planner reads the schedule in effect: the queue's own, else the repository's.
  const { schedule } = await schedules.of(queue, provider, targetSha);

  const mode = queue.mode;
  const impactedTargets: Record<string, ImpactedTargetSet> = {};
  const open = entries.filter((e) => !TERMINAL_ENTRY_STATES.includes(e.state));
  // A freeze of given targets holds the pull requests that impact them, in either mode.
  if (mode === 'parallel' || (schedule && scopedByTargets(schedule))) {
    const uploads = await store.impactedTargets.getMany(
      queue.id,
      open.map((e) => ({ prNumber: e.prNumber, sha: e.prSha })),
    );
    for (const e of open) {
      const targets = uploads.get(headKey({ prNumber: e.prNumber, sha: e.prSha }));
      if (targets !== undefined) impactedTargets[e.id] = targets;
    }
  }
  // Lanes from paths stand in for the targets a pull request did not upload (docs/lanes.md).
  const { lanes, problem: lanesProblem } = mode === 'parallel' ? await sources.lanes.read(queue, provider, targetSha) : { lanes: null, problem: null };
  if (lanes) {
    const missing = open.filter((e) => impactedTargets[e.id] === undefined);
    const paths = await changedPaths.of(queue, provider, targetSha, missing);
    for (const e of missing) impactedTargets[e.id] = laneTargets(lanes, paths[e.id] ?? null);
  }
  // Entries under test got their lanes above too: runs already going count against the caps.
  const caps = lanes ? laneCaps(lanes) : {};

  const directMerge: Record<string, DirectMergeFacts> = {};
  if (queue.directMergeMode === 'always' && targetSha) {
    const waiting = active.filter((e) => e.state === 'not_ready' || e.state === 'pending');
    const statusesOf = await store.commitStatuses.forCommits(
      queue.orgId,
      repoKey(queue.repo),
      waiting.map((e) => e.prSha),
    );
    for (const e of waiting) {
      const statuses = statusesOf.get(e.prSha) ?? [];
      directMerge[e.id] = {
        basedOnTargetTip: await provider.isAncestor(queue.repo, targetSha, e.prSha),
        requiredStatusesPassing:
          required.contexts.length > 0 &&
          evaluateRequiredStatuses(
            required.contexts,
            statuses.map((s) => ({ context: s.context, state: s.state, at: s.createdAt })),
          ) === 'success',
      };
    }
  }

  return {
    required,
    lanesProblem,
    input: {
      testResults: await failedRunEvidence(testResults, queue, runs, active),
      queue: { ...queue, schedule },
      entries,
      runs,
      targetSha,
      impactedTargets,
      ...(Object.keys(caps).length > 0 ? { laneCaps: caps } : {}),
      ...(schedule && scopedByPaths(schedule) ? { changedPaths: await changedPaths.of(queue, provider, targetSha, open) } : {}),
      directMerge,
      requiredStatuses: { contexts: required.contexts, source: required.source, configError: required.configError },
      runEstimateSeconds: schedule ? typicalRunSeconds(await recentRunSamples(store, queue, now)) : null,
      now,
    },
  };
}

/**
 * Test results of the failed main runs active entries still hold (testing ones enter pending
 * failure in the same pass), with their failed tests' results on the target commit and, for a
 * run of one pull request, on its head: what the re-test decision and the verdict read.
 */
async function failedRunEvidence(source: RunTestResultsSource, queue: Queue, runs: TestRun[], active: Entry[]): Promise<Record<string, RunTestEvidence>> {
  const held = new Set(active.map((e) => e.currentRunId).filter((id) => id !== null));
  const failed = runs.filter((r) => r.kind === 'main' && r.status === 'failed' && held.has(r.id));
  if (failed.length === 0 || (queue.flakyRetries === 0 && queue.notItsFaultRetries === 0 && !queue.targetBroken)) return {};
  const cache = { results: await source.resultsOf(queue.orgId, queue.repo, failed), expected: await source.uploadsResults(queue.orgId, queue.repo) };
  const headOf = new Map(active.map((e) => [e.id, e.prSha]));
  const out: Record<string, RunTestEvidence> = {};
  for (const r of failed) {
    const head = r.entryIds.length === 1 ? (headOf.get(r.entryIds[0]!) ?? null) : null;
    out[r.id] = await runEvidence(source, queue, r, head, cache);
  }
  return out;
}

/**
 * Runs in progress, runs referenced by active entries (current run, bisection root), bisection
 * runs of those roots, and concluded runs whose branch still exists.
 */
async function relevantRuns(store: SnapshotRepositories, queueId: string, active: Entry[]): Promise<TestRun[]> {
  const runs = new Map<string, TestRun>();
  for (const r of await store.testRuns.listOpen(queueId)) runs.set(r.id, r);
  const referenced = new Set<string>();
  for (const e of active) {
    if (e.currentRunId) referenced.add(e.currentRunId);
    if (e.bisectionOf) referenced.add(e.bisectionOf);
  }
  const missing = [...referenced].filter((id) => !runs.has(id));
  for (const r of await store.testRuns.findByIds(missing)) runs.set(r.id, r);
  const roots = [...referenced].filter((id) => runs.get(id)?.kind === 'main');
  for (const r of await store.testRuns.listBisectionsOf(queueId, roots)) runs.set(r.id, r);
  return [...runs.values()];
}

/**
 * Active entries plus the terminal ones that runs reference, the latest entry of each stack
 * member below an active one, and (parallel mode) entries the queue merged since the oldest
 * relevant run was created.
 */
async function withReferencedEntries(store: SnapshotRepositories, queue: Queue, active: Entry[], runs: TestRun[]): Promise<Entry[]> {
  const byId = new Map(active.map((e) => [e.id, e]));
  const wanted = new Set<string>();
  for (const r of runs) for (const id of [...r.entryIds, ...r.baseEntryIds]) if (!byId.has(id)) wanted.add(id);
  for (const e of await store.entries.findByIds([...wanted])) byId.set(e.id, e);
  // The member below each stack member, when it left the queue: whether it merged or failed
  // decides whether the members above it go on (planner/stacks.ts).
  const activePrs = new Set(active.map((e) => e.prNumber));
  const below = new Set(active.flatMap((e) => (e.stack?.belowPr != null && !activePrs.has(e.stack.belowPr) ? [e.stack.belowPr] : [])));
  for (const pr of below) {
    const latest = await store.entries.findLatestByPr(queue.id, pr);
    if (latest) byId.set(latest.id, latest);
  }
  if (queue.mode === 'parallel' && runs.length > 0) {
    const oldest = runs.reduce((min, r) => (r.createdAt < min ? r.createdAt : min), runs[0]!.createdAt);
    for (const e of await store.entries.listMergedSince(queue.id, oldest)) {
      byId.set(e.id, e);
    }
  }
  return [...byId.values()];
}

async function requiredStatusesAt(queue: Queue, provider: GitProvider, targetSha: string | null): Promise<ResolvedRequiredStatuses> {
  if (queue.requiredStatuses && queue.requiredStatuses.length > 0) {
    return resolveRequiredStatuses(queue.requiredStatuses, { kind: 'absent' }, null);
  }
  if (!targetSha) return resolveRequiredStatuses(null, { kind: 'absent' }, null);
  const trunk = await readTrunkRequiredStatuses(provider, queue.repo, targetSha);
  const protection = await provider.branchProtectionRequiredStatuses(queue.repo, queue.branch);
  return resolveRequiredStatuses(null, trunk, protection);
}
