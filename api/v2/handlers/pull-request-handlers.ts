// The v2 operations on pull requests: submit to a queue, list a queue's, find by coordinates,
// read, change the queue entry, dequeue, restart, history, verification runs, impacted targets.
// Each change goes through the same use case as its v1 twin, so the same events fire.
import type { V2Handler } from '../v2-router.js';
import type { components } from '../../../openapi/v2/types.js';
import { queueOf, type V2Deps } from './v2-deps.js';
import type { Entry, EntryState, Queue } from '../../../shared/merge-queue/domain/model.js';
import { ACTIVE_ENTRY_STATES } from '../../../shared/merge-queue/domain/model.js';
import type { PullRequestResource } from '../../../shared/merge-queue/services/resource-service.js';
import type { EntryChange } from '../../../shared/merge-queue/services/pull-request-service.js';
import type { EntryPageQuery } from '../../../shared/merge-queue/store/entry-repository.js';
import { conflict, notFound } from '../../../shared/platform/errors.js';
import { serializeEntryPullRequest, serializePullRequest, transitionsOf } from '../serializers/pull-request.js';
import { ENTRY_STATE_OF_V2, RUN_STATUS_OF_V2 } from '../serializers/wire-names.js';
import { cursorNumber, pageOf, pageOfList, pageRequest } from '../pagination.js';
import { validationFailed } from '../v2-errors.js';
import { runPage } from './queue-view-handlers.js';
import { repositoryIdOf } from '../../../shared/merge-queue/domain/resource-ids.js';

type S = components['schemas'];

const MAX_IDS = 50;

/** `a,b,c` into its parts, at most `max`. */
function commaList(value: unknown, name: string, max: number): string[] {
  const parts = String(value)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw validationFailed(`${name} names nothing`);
  if (parts.length > max) throw validationFailed(`${name} may name at most ${max}`);
  return parts;
}

/** The pull request's entry still in a queue, with that queue; 409 PR_NOT_IN_ACTIVE_STATE when none is. */
function activeEntryOf(pr: PullRequestResource): { entry: Entry; queue: Queue } {
  const entry = pr.entries.find((e) => ACTIVE_ENTRY_STATES.includes(e.state));
  const queue = entry ? pr.queues.get(entry.queueId) : undefined;
  if (!entry || !queue) throw conflict('pr_not_active', `pull request #${pr.number} is not in a queue`);
  return { entry, queue };
}

export function pullRequestHandlers(deps: V2Deps): Record<string, V2Handler> {
  const { pullRequests, resources } = deps.services;

  /** The pull request re-read after a change. */
  const reread = async (orgId: string, id: string) => ({ body: serializePullRequest(await resources.pullRequest(orgId, id)) });

  const changeEntry =
    (changeOf: (body: unknown) => EntryChange): V2Handler =>
    async ({ params, body, caller }) => {
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const { queue } = activeEntryOf(pr);
      await pullRequests.updateEntry(caller.actor, queue.repo, queue.branch, pr.number, changeOf(body));
      return reread(caller.actor.orgId, pr.id);
    };

  return {
    'mergeQueues.submitPullRequest': async ({ params, body, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const req = body as S['SubmitPullRequestRequest'];
      if (req.priorityValue !== undefined && req.priorityName !== undefined) throw validationFailed('send priorityValue or priorityName, not both');
      const entry = await pullRequests.submit(caller.actor, {
        repo: queue.repo,
        branch: queue.branch,
        prNumber: req.number,
        priority: req.priorityValue ?? req.priorityName,
        noBatch: req.allowBatching === undefined ? undefined : !req.allowBatching,
        direct: req.direct,
        whenActive: 'refuse',
      });
      const ids = await resources.rememberPullRequests(queue.orgId, queue.repo, [entry.prNumber]);
      return {
        body: serializeEntryPullRequest(entry, { pullRequestId: ids.get(entry.prNumber) ?? '', repositoryId: repositoryIdOf(queue.orgId, queue.repo) }),
      };
    },

    'mergeQueues.listPullRequests': async ({ params, query, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const filters = { id: queue.id, state: query.state, author: query.author, concludedAfter: query.concludedAfter, concludedBefore: query.concludedBefore };
      const page = pageRequest('mergeQueues.listPullRequests', query, filters);
      const q: EntryPageQuery = { limit: page.limit + 1 };
      if (typeof query.state === 'string') {
        q.states = commaList(query.state, 'state', 8).map((s) => {
          const state = ENTRY_STATE_OF_V2[s as S['QueueEntryState']] as EntryState | undefined;
          if (!state) throw validationFailed(`state "${s}" is not a queue-entry state (camelCase: ${Object.keys(ENTRY_STATE_OF_V2).join(', ')})`);
          return state;
        });
      }
      if (typeof query.author === 'string') q.author = query.author;
      // Concluded: in a final state, last changed in the window.
      if (query.concludedAfter !== undefined || query.concludedBefore !== undefined) {
        q.states = (q.states ?? ['merged', 'failed', 'cancelled']).filter((s) => !ACTIVE_ENTRY_STATES.includes(s));
        if (typeof query.concludedAfter === 'string') q.changedSince = new Date(query.concludedAfter);
        if (typeof query.concludedBefore === 'string') q.changedBefore = new Date(query.concludedBefore);
      }
      if (page.after !== undefined) q.beforeSeq = cursorNumber(page.after);
      const entries = q.states?.length === 0 ? [] : await deps.store.entries.listPage(queue.id, q);
      const ids = await resources.rememberPullRequests(
        queue.orgId,
        queue.repo,
        entries.map((e) => e.prNumber),
      );
      const repositoryId = repositoryIdOf(queue.orgId, queue.repo);
      let total: number | undefined;
      if (page.includeTotal) {
        const { beforeSeq: _position, limit: _limit, ...matching } = q;
        total = q.states?.length === 0 ? 0 : await deps.store.entries.countPage(queue.id, matching);
      }
      return {
        body: pageOf(
          'mergeQueues.listPullRequests',
          filters,
          page,
          entries,
          (e) => e.seq,
          (e) => serializeEntryPullRequest(e, { pullRequestId: ids.get(e.prNumber) ?? '', repositoryId }),
          total,
        ),
      };
    },

    'pullRequests.resolveByCoordinates': async ({ query, caller }) => {
      const { orgId } = caller.actor;
      const repositoryId = String(query.repositoryId);
      const filters = { repositoryId, number: query.number, branch: query.branch, baseBranch: query.baseBranch };
      const page = pageRequest('pullRequests.resolveByCoordinates', query, filters);
      if ((query.number === undefined) === (query.branch === undefined)) throw validationFailed('give exactly one of number or branch');
      if (query.baseBranch !== undefined && query.branch === undefined) throw validationFailed('baseBranch narrows a branch lookup; give branch too');
      let found: PullRequestResource[];
      if (query.number !== undefined) {
        const numbers = commaList(query.number, 'number', MAX_IDS).map((n) => {
          if (!/^[1-9]\d{0,9}$/.test(n)) throw validationFailed(`number "${n}" is not a pull request number`);
          return Number(n);
        });
        found = await resources.pullRequestsByNumber(orgId, repositoryId, numbers);
      } else {
        found = await resources.pullRequestsByBranch(
          orgId,
          repositoryId,
          String(query.branch),
          typeof query.baseBranch === 'string' ? query.baseBranch : undefined,
        );
      }
      return { body: pageOfList('pullRequests.resolveByCoordinates', filters, page, found, serializePullRequest) };
    },

    'pullRequests.get': async ({ params, caller }) => reread(caller.actor.orgId, params.id ?? ''),

    'pullRequests.reprioritize': changeEntry((body) => {
      const req = body as { priorityValue?: number; priorityName?: string };
      return { priority: req.priorityValue ?? req.priorityName };
    }),

    'pullRequests.updateQueueEntry': changeEntry((body) => {
      const req = body as S['UpdateQueueEntryRequest'];
      if (req.priorityValue !== undefined && req.priorityName !== undefined) throw validationFailed('send priorityValue or priorityName, not both');
      const change: EntryChange = {};
      const priority = req.priorityValue ?? req.priorityName;
      if (priority !== undefined) change.priority = priority;
      if (req.allowBatching !== undefined) change.noBatch = !req.allowBatching;
      if (req.direct !== undefined) change.direct = req.direct;
      return change;
    }),

    'pullRequests.dequeue': async ({ params, caller }) => {
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const { queue } = activeEntryOf(pr);
      await pullRequests.cancel(caller.actor, queue.repo, queue.branch, pr.number);
      return reread(caller.actor.orgId, pr.id);
    },

    'pullRequests.restartTests': async ({ params, caller }) => {
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const { queue } = activeEntryOf(pr);
      await pullRequests.restartTests(caller.actor, queue.repo, queue.branch, pr.number);
      return reread(caller.actor.orgId, pr.id);
    },

    'pullRequests.rerunFailedChecks': async ({ params, body, caller }) => {
      const { mode } = body as S['RerunFailedChecksRequest'];
      // The engine does not hold a failed run while its checks are re-run (docs/api-v2.md#gaps).
      if (mode === 'wait') throw validationFailed('mode "wait" is not supported by this service: use mode "now", which tests the pull request again at once');
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const { queue } = activeEntryOf(pr);
      await pullRequests.rerunFailedChecks(caller.actor, queue.repo, queue.branch, pr.number);
      return { body: { rerun: {} } satisfies S['RerunFailedChecksResponse'] };
    },

    'pullRequests.queueEntryHistory': async ({ params, query, caller }) => {
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const filters = { id: pr.id, direction: query.direction };
      const page = pageRequest('pullRequests.queueEntryHistory', query, filters);
      const transitions = transitionsOf(pr.id, pr.entries);
      if (query.direction === 'newest') transitions.reverse();
      return { body: pageOfList('pullRequests.queueEntryHistory', filters, page, transitions, (t) => t) };
    },

    'pullRequests.queueEntryHistoryBatch': async ({ query, caller }) => {
      const ids = commaList(query.pullRequestIds, 'pullRequestIds', MAX_IDS);
      const filters = { pullRequestIds: ids.join(','), direction: query.direction };
      const page = pageRequest('pullRequests.queueEntryHistoryBatch', query, filters);
      const groups: S['PullRequestQueueEntryHistory'][] = [];
      for (const id of ids) {
        // An id of no pull request of this organisation is an empty group, never a 404.
        const pr = await resources.pullRequest(caller.actor.orgId, id).catch((err: unknown) => {
          if (err instanceof Error && 'code' in err && err.code === 'pull_request_not_found') return null;
          throw err;
        });
        const transitions = pr ? transitionsOf(pr.id, pr.entries) : [];
        if (query.direction === 'newest') transitions.reverse();
        groups.push({ pullRequestId: id, transitions });
      }
      return { body: pageOfList('pullRequests.queueEntryHistoryBatch', filters, page, groups, (g) => g) };
    },

    'pullRequests.listVerificationRuns': async ({ params, query, caller }) => {
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const filters = { id: pr.id, status: query.status };
      const page = pageRequest('pullRequests.listVerificationRuns', query, filters);
      const runQuery = { scope: { entryIds: pr.entries.map((e) => e.id) } } as const;
      const status = typeof query.status === 'string' ? RUN_STATUS_OF_V2[query.status as S['VerificationRunStatus']] : undefined;
      if (pr.entries.length === 0) return { body: { data: [], nextCursor: null, hasMore: false, ...(page.includeTotal ? { total: 0 } : {}) } };
      return {
        body: await runPage(
          deps,
          async (run) => {
            const queue = pr.queues.get(run.queueId);
            if (!queue) throw notFound('queue_not_found', 'the queue of this run no longer exists');
            return queue;
          },
          page,
          'pullRequests.listVerificationRuns',
          filters,
          status ? { ...runQuery, status } : runQuery,
        ),
      };
    },

    'pullRequests.getImpactedTargets': async ({ params, caller }) => {
      const pr = await resources.pullRequest(caller.actor.orgId, params.id ?? '');
      const latest = pr.entries[0];
      const base = pr.info.baseBranch ?? latest?.prBaseBranch;
      const queue = latest ? pr.queues.get(latest.queueId) : [...pr.queues.values()].find((q) => q.branch === base);
      const targets = queue ? await deps.store.impactedTargets.get(queue.id, pr.number, pr.info.headSha) : null;
      if (!targets)
        throw notFound(
          'impacted_targets_not_found',
          `no impacted targets were uploaded for the head ${pr.info.headSha.slice(0, 12)} of pull request #${pr.number}`,
        );
      const list = targets === 'ALL' ? [] : targets;
      return {
        body: {
          sha: pr.info.headSha,
          impactsAllTargets: targets === 'ALL',
          impactedTargets: list.slice(0, 100_000),
          totalImpactedTargets: list.length,
        } satisfies S['PullRequestImpactedTargets'],
      };
    },
  };
}
