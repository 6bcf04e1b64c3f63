// The v2 reads of what a queue is doing: its order, its merge graph, its verification runs and
// testing results.
import type { V2Handler } from '../v2-router.js';
import type { components } from '../../../openapi/v2/types.js';
import { queueOf, type V2Deps } from './v2-deps.js';
import type { Entry, Queue, TestRun } from '../../../shared/merge-queue/domain/model.js';
import { compareQueueOrder } from '../../../shared/merge-queue/domain/queue-order.js';
import { mergeGraphEdges } from '../../../shared/merge-queue/domain/merge-graph.js';
import { headKey, type ImpactedTargets } from '../../../shared/merge-queue/store/impacted-targets-repository.js';
import { repoKey } from '../../../shared/platform/repo-ref.js';
import { notFound } from '../../../shared/platform/errors.js';
import { ENTRY_STATE_V2, MODE_V2, QUEUE_STATE_V2, RUN_STATUS_OF_V2 } from '../serializers/wire-names.js';
import { serializeTestingResult, serializeVerificationRun, type RunView } from '../serializers/verification-run.js';
import { cursorNumber, cursorOfRun, pageOf, pageRequest, type PageRequest } from '../pagination.js';
import { validationFailed } from '../v2-errors.js';
import type { TestRunPageQuery } from '../../../shared/merge-queue/store/test-run-repository.js';

type S = components['schemas'];

const AWAITING_SHOWN = 100;
const RESULTS_WINDOW_DAYS = 45;
const IN_RUN: readonly Entry['state'][] = ['testing', 'tests_passed', 'pending_failure'];

/** Run views for runs of one queue: entries, statuses of their commits, pull-request ids. */
export async function runViewsOf(deps: V2Deps, queue: Queue, runs: readonly TestRun[]): Promise<RunView[]> {
  const entries = await deps.store.entries.findByIds([...new Set(runs.flatMap((r) => [...r.entryIds, ...r.baseEntryIds]))]);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const pick = (ids: readonly string[]) => ids.map((id) => byId.get(id)).filter((e): e is Entry => e !== undefined);
  const shas = runs.map((r) => r.sha).filter((s): s is string => s !== null);
  const statuses = await deps.store.commitStatuses.forCommits(queue.orgId, repoKey(queue.repo), shas);
  const ids = await deps.services.resources.rememberPullRequests(
    queue.orgId,
    queue.repo,
    entries.map((e) => e.prNumber),
  );
  const pullRequestIdOf = (n: number) => ids.get(n) ?? '';
  return runs.map((run) => ({
    run,
    tested: pick(run.entryIds),
    base: pick(run.baseEntryIds),
    statuses: run.sha ? (statuses.get(run.sha) ?? []) : [],
    pullRequestIdOf,
  }));
}

/** A page of runs (newest first) from the store, as the contract's list. */
export async function runPage(
  deps: V2Deps,
  queueOfRun: (run: TestRun) => Promise<Queue>,
  page: PageRequest,
  operationId: string,
  filters: Record<string, unknown>,
  query: Omit<TestRunPageQuery, 'limit' | 'after'>,
) {
  const runs = await deps.store.testRuns.listPage({
    ...query,
    limit: page.limit + 1,
    ...(page.after !== undefined ? { after: cursorOfRun(page.after) } : {}),
  });
  // One read of entries, statuses and ids per queue the page's runs belong to, not per run.
  const byQueue = new Map<string, TestRun[]>();
  for (const run of runs.slice(0, page.limit)) byQueue.set(run.queueId, [...(byQueue.get(run.queueId) ?? []), run]);
  const views = new Map<string, RunView>();
  for (const group of byQueue.values()) {
    for (const view of await runViewsOf(deps, await queueOfRun(group[0] as TestRun), group)) views.set(view.run.id, view);
  }
  return pageOf(
    operationId,
    filters,
    page,
    runs,
    (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id }),
    (r) => serializeVerificationRun(views.get(r.id) as RunView),
  );
}

async function targetsByEntry(deps: V2Deps, queue: Queue, entries: readonly Entry[]): Promise<Map<string, ImpactedTargets>> {
  const uploads = await deps.store.impactedTargets.getMany(
    queue.id,
    entries.map((e) => ({ prNumber: e.prNumber, sha: e.prSha })),
  );
  const out = new Map<string, ImpactedTargets>();
  for (const e of entries) {
    const t = uploads.get(headKey({ prNumber: e.prNumber, sha: e.prSha }));
    if (t) out.set(e.id, t);
  }
  return out;
}

export function queueViewHandlers(deps: V2Deps): Record<string, V2Handler> {
  const queued = (e: Entry, idOf: ReadonlyMap<number, string>): S['QueuedPullRequest'] => ({
    id: idOf.get(e.prNumber) ?? '',
    number: e.prNumber,
    sha: e.prSha,
    title: e.prTitle,
  });

  return {
    'mergeQueues.order': async ({ params, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const active = [...(await deps.services.queues.listEntries(queue))].sort(compareQueueOrder);
      const idOf = await deps.services.resources.rememberPullRequests(
        queue.orgId,
        queue.repo,
        active.map((e) => e.prNumber),
      );
      const admitted = active.filter((e) => e.state !== 'not_ready');
      const targets = await targetsByEntry(deps, queue, admitted);
      const edges = mergeGraphEdges(queue.mode, admitted, (e) => targets.get(e.id) ?? 'ALL');
      const inRun = admitted.filter((e) => IN_RUN.includes(e.state) && e.currentRunId !== null);
      const runIds = [...new Set(inRun.map((e) => e.currentRunId as string))];
      const runs = new Map((await deps.store.testRuns.findByIds(runIds)).map((r) => [r.id, r]));
      const batches: S['OrderedBatch'][] = runIds.map((runId) => {
        const members = inRun.filter((e) => e.currentRunId === runId);
        const first = members[0] as Entry;
        return {
          verificationRunId: runId,
          state: ENTRY_STATE_V2[first.state],
          isBisection: runs.get(runId)?.kind === 'bisection',
          pullRequests: members.map((e) => queued(e, idOf)),
        };
      });
      const pending: S['OrderedPendingItem'][] = admitted
        .filter((e) => e.state === 'pending')
        .map((e) => {
          const ahead = admitted.slice(0, admitted.indexOf(e));
          const heldBy = ahead.filter((a) => a.state === 'pending_failure');
          return {
            pullRequest: queued(e, idOf),
            schedulability: heldBy.length > 0 ? 'heldBehindFailure' : 'schedulable',
            directlyAhead: edges.filter((edge) => edge.to === e).map((edge) => queued(edge.from, idOf)),
            heldBy: heldBy.map((a) => queued(a, idOf)),
          };
        });
      const awaiting = active.filter((e) => e.state === 'not_ready');
      const body: S['MergeQueueOrder'] = {
        mode: MODE_V2[queue.mode],
        queueState: QUEUE_STATE_V2[queue.state],
        batchingEnabled: queue.batch,
        // The engine applies no batching rule, so nothing is left unresolved (docs/api-v2.md#gaps).
        isolationResolved: true,
        // Dependencies only point at earlier entries: the graph has no cycle.
        hasCycle: false,
        batches,
        pending,
        awaitingAdmission: awaiting.slice(0, AWAITING_SHOWN).map((e) => queued(e, idOf)),
        awaitingAdmissionTotal: awaiting.length,
      };
      return { body };
    },

    'mergeQueues.graph': async ({ params, query, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const admitted = [...(await deps.services.queues.listEntries(queue))].filter((e) => e.state !== 'not_ready').sort(compareQueueOrder);
      const targets = await targetsByEntry(deps, queue, admitted);
      const withTargets = query.includeImpactedTargets === true;
      const runs = new Map(
        (await deps.store.testRuns.findByIds(admitted.map((e) => e.currentRunId).filter((id): id is string => id !== null))).map((r) => [r.id, r]),
      );
      const nodes: S['MergeGraphNode'][] = admitted.map((e) => {
        const t = targets.get(e.id);
        const run = e.currentRunId ? runs.get(e.currentRunId) : undefined;
        return {
          pullRequestNumber: e.prNumber,
          title: e.prTitle,
          author: e.prAuthor,
          state: ENTRY_STATE_V2[e.state],
          priorityValue: e.priorityValue,
          priorityName: e.priorityName,
          skipsTheLine: e.priorityValue === 0,
          allowsBatching: !e.noBatch,
          ...(run ? { verificationRunId: run.id } : {}),
          isBisection: run?.kind === 'bisection',
          ...(withTargets && t && t !== 'ALL' ? { impactedTargets: t.slice(0, 10_000), totalImpactedTargets: t.length } : {}),
        };
      });
      const edges: S['MergeGraphEdge'][] = mergeGraphEdges(queue.mode, admitted, (e) => targets.get(e.id) ?? 'ALL').map(({ from, to }) => {
        const a = targets.get(from.id);
        const b = targets.get(to.id);
        const common = withTargets && Array.isArray(a) && Array.isArray(b) ? a.filter((t) => new Set(b).has(t)) : null;
        return {
          fromPullRequestNumber: from.prNumber,
          toPullRequestNumber: to.prNumber,
          ...(common ? { commonImpactedTargets: common.slice(0, 10_000), totalCommonImpactedTargets: common.length } : {}),
        };
      });
      return { body: { nodes, edges } satisfies S['MergeGraph'] };
    },

    'mergeQueues.listVerificationRuns': async ({ params, query, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const filters = { id: queue.id, status: query.status, createdAfter: query.createdAfter };
      const page = pageRequest('mergeQueues.listVerificationRuns', query, filters);
      const runQuery: Omit<TestRunPageQuery, 'limit' | 'after'> = { scope: { queueId: queue.id } };
      if (typeof query.status === 'string') runQuery.status = RUN_STATUS_OF_V2[query.status as S['VerificationRunStatus']];
      if (typeof query.createdAfter === 'string') runQuery.createdAfter = new Date(query.createdAfter);
      return { body: await runPage(deps, async () => queue, page, 'mergeQueues.listVerificationRuns', filters, runQuery) };
    },

    'mergeQueueVerificationRuns.get': async ({ params, caller }) => {
      const run = await deps.store.testRuns.findById(params.id ?? '');
      if (!run || run.orgId !== caller.actor.orgId) throw notFound('test_run_not_found', `no verification run with id ${params.id ?? ''}`);
      const queue = await queueOf(deps, caller.actor.orgId, run.queueId);
      const [view] = await runViewsOf(deps, queue, [run]);
      return { body: serializeVerificationRun(view as RunView) };
    },

    'mergeQueues.listTestingResults': async ({ params, query, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const since = new Date(String(query.since));
      const until = typeof query.until === 'string' ? new Date(query.until) : new Date();
      if (until < since) throw validationFailed('until must not be before since');
      if (until.getTime() - since.getTime() > RESULTS_WINDOW_DAYS * 86_400_000)
        throw validationFailed(`since and until may be at most ${RESULTS_WINDOW_DAYS} days apart`);
      const filters = { id: queue.id, since: query.since, until: query.until };
      const page = pageRequest('mergeQueues.listTestingResults', query, filters);
      // Rows are one per pull request of a run; a cursor names the run and how many of its rows were shown.
      type Row = { result: S['TestingResult']; key: { createdAt: string; id: string; skip: number } };
      const rowsOf = async (runs: readonly TestRun[]): Promise<Row[]> => {
        const entries = new Map((await deps.store.entries.findByIds([...new Set(runs.flatMap((r) => r.entryIds))])).map((e) => [e.id, e]));
        const failedMain = runs.filter((r) => r.kind === 'main' && r.status === 'failed').map((r) => r.id);
        const bisected = new Set((await deps.store.testRuns.listBisectionsOf(queue.id, failedMain)).map((b) => b.bisectionOf));
        return runs.flatMap((run) =>
          run.entryIds.flatMap((entryId, i) => {
            const entry = entries.get(entryId);
            const result = entry ? serializeTestingResult(run, entry, entry.prNumber, bisected.has(run.id)) : null;
            return result ? [{ result, key: { createdAt: run.createdAt.toISOString(), id: run.id, skip: i + 1 } }] : [];
          }),
        );
      };
      const concluded = { since, until };
      const rows: Row[] = [];
      let after = page.after === undefined ? undefined : cursorOfRun(page.after);
      if (after) {
        const skip = cursorNumber((page.after as { skip?: unknown }).skip);
        const run = await deps.store.testRuns.findById(after.id);
        if (run && run.queueId === queue.id) rows.push(...(await rowsOf([run])).filter((r) => r.key.skip > skip));
      }
      for (;;) {
        if (rows.length > page.limit) break;
        const runs = await deps.store.testRuns.listPage({ scope: { queueId: queue.id }, concluded, limit: 50, ...(after ? { after } : {}) });
        rows.push(...(await rowsOf(runs)));
        const last = runs.at(-1);
        if (!last || runs.length < 50) break;
        after = { createdAt: last.createdAt, id: last.id };
      }
      let total: number | undefined;
      if (page.includeTotal) {
        // Every run concluded in the window (at most 45 days of one queue), one row per pull request.
        const all = await deps.store.testRuns.listPage({ scope: { queueId: queue.id }, concluded, limit: 1_000_000 });
        total = (await rowsOf(all)).length;
      }
      return {
        body: pageOf(
          'mergeQueues.listTestingResults',
          filters,
          page,
          rows,
          (r) => r.key,
          (r) => r.result,
          total,
        ),
      };
    },
  };
}
