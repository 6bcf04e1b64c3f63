// Use cases of pull requests in a queue: submit, cancel, restart, read, impacted targets, list.
// State changes are compare-and-set transitions with reason codes; the engine (planner) does
// everything that follows from them.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryStack, EntryState, Queue } from '../domain/model.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { ACTIVE_ENTRY_STATES, TERMINAL_ENTRY_STATES } from '../domain/model.js';
import { isUrgentPriority, resolvePriority, type PriorityInput, type ResolvedPriority } from '../domain/priority.js';
import { describeActor, type Actor } from '../../platform/accounts/actor.js';
import { requireCapability } from '../../platform/accounts/policy.js';
import { conflict, invalid, notFound, repositoryNotFound, forbidden } from '../../platform/errors.js';
import { CAS_LOST, retryCompareAndSet } from '../../platform/compare-and-set.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { ImpactedTargets } from '../store/impacted-targets-repository.js';
import type { EntryPageQuery } from '../store/entry-repository.js';
import type { GitProvider, ProviderRegistry, PullRequestInfo } from './provider.js';
import type { Logger } from '../../platform/logging.js';
import type { QueueService } from './queue-service.js';
import { ReadinessService } from './readiness-service.js';
import { submittedEntry } from '../domain/submitted-entry.js';
import { byHeadBranch, resolveStack, stackPlaces } from '../domain/stack.js';
import { baseBranchMatches } from '../domain/readiness.js';

export interface PullRequestServiceDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'impactedTargets'>;
  providers: ProviderRegistry;
  queues: QueueService;
  logger: Logger;
  requestPlan: (queueId: string, why: string) => Promise<void>;
  /** Whether pull requests from forks may be queued in this repository (absent: no forge with forks). */
  forksAllowed?: (repo: RepoRef) => Promise<boolean>;
}

const RESTARTABLE: readonly EntryState[] = ['testing', 'tests_passed', 'pending_failure'];
const ENTRY = 'the pull request';

/** submitPullRequest. */
export interface SubmitInput {
  repo: RepoRef;
  branch: string;
  prNumber: number;
  /** Omitted (undefined) keeps an active entry's priority; null asks for the default. */
  priority: PriorityInput;
  /** Omitted keeps an active entry's setting (false for a new entry). */
  noBatch: boolean | undefined;
  /** Admitted without waiting for the forge's mergeability (v1 `forceEnqueued`, v2 `direct`); omitted: false for a new entry. */
  direct?: boolean | undefined;
  /**
   * A pull request already in the queue: `update` changes its priority and batching (v1's
   * resubmission), `refuse` answers 409 pr_already_enqueued (v2). Default `update`.
   */
  whenActive?: 'update' | 'refuse';
}

/** What updateEntry may change of an active entry; each field needs its own permission. */
export interface EntryChange {
  priority?: PriorityInput;
  noBatch?: boolean;
  direct?: boolean;
}

export interface ListPage {
  entries: Entry[];
  nextCursor: string | null;
}

export class PullRequestService {
  private readonly readiness: ReadinessService;

  constructor(private readonly deps: PullRequestServiceDeps) {
    this.readiness = new ReadinessService({ store: deps.store });
  }

  /**
   * Submits (or resubmits) a pull request for `actor`: write access is needed, and the urgent
   * priority, which preempts running tests, needs the admin role (from the forge: admin or
   * maintain permission on the repository). The entry's history names the actor.
   */
  async submit(actor: Actor, input: SubmitInput): Promise<Entry> {
    const { repo, branch, prNumber, priority: priorityInput, noBatch, direct } = input;
    requireCapability(actor, 'merge_and_cancel', 'submitting a pull request');
    const priority = this.allowedPriority(actor, priorityInput, 'submitting');
    this.requireEntryOptions(actor, { noBatch: noBatch === true, direct: direct === true });
    const queue = await this.deps.queues.get(actor.orgId, repo, branch);
    const provider = await this.providerOf(repo);
    const pr = await this.pullRequestAt(provider, repo, prNumber);
    // A pull request based on another one's head branch is the top of a stack: it is queued with
    // every member below it, bottom first, as one unit (domain/stack.ts).
    const members = pr.state === 'open' && !pr.draft ? await this.stackOf(queue, provider, pr) : [pr];
    const places = stackPlaces(queue.id, members);
    let entry: Entry | null = null;
    for (const [i, member] of members.entries()) {
      entry = await this.submitMember(actor, queue, member, {
        priority,
        keepPriority: priorityInput === undefined,
        noBatch,
        direct,
        stack: places[i] ?? null,
        whenActive: input.whenActive ?? 'update',
      });
    }
    return entry as Entry;
  }

  private async stackOf(queue: Queue, provider: GitProvider, pr: PullRequestInfo): Promise<PullRequestInfo[]> {
    if ((pr.baseBranch ?? queue.branch) === queue.branch) return [pr];
    const stack = resolveStack(pr, queue.branch, byHeadBranch(await provider.listOpenPullRequests(queue.repo)));
    if (stack.ok) return stack.members;
    // Based on a branch no open pull request heads: not a stack, but a pull request waiting
    // (not ready) for its base to become the queue's branch, as before stacks.
    if (stack.code === 'stack_base_unknown' && stack.prNumber === pr.number) return [pr];
    throw invalid(stack.code, stack.message, [{ path: '/pr/number', message: `pull request #${stack.prNumber}` }]);
  }

  private async submitMember(
    actor: Actor,
    queue: Queue,
    pr: PullRequestInfo,
    opts: {
      priority: ResolvedPriority;
      keepPriority: boolean;
      noBatch: boolean | undefined;
      direct: boolean | undefined;
      stack: EntryStack | null;
      whenActive: 'update' | 'refuse';
    },
  ): Promise<Entry> {
    const { priority, noBatch } = opts;
    const prNumber = pr.number;
    const repo = queue.repo;
    const branch = queue.branch;
    return retryCompareAndSet(ENTRY, async () => {
      const active = await this.deps.store.entries.findActiveByPr(queue.id, prNumber);
      if (active && opts.whenActive === 'refuse') {
        throw conflict('pr_already_enqueued', `pull request #${prNumber} is already in the queue (${active.state}); change it with updateQueueEntry`);
      }
      if (active) {
        // Resubmitting an active entry only updates its priority, batching and place in a stack;
        // it keeps its place in line. Like noBatch, an omitted priority leaves the entry's as it
        // is (a plain "submit again" must not demote an urgent pull request); an explicit null
        // asks for the default.
        const keepPriority = opts.keepPriority;
        const set = {
          priorityValue: keepPriority ? active.priorityValue : priority.value,
          priorityName: keepPriority ? active.priorityName : priority.name,
          usedDefaultPriorityName: keepPriority ? active.usedDefaultPriorityName : priority.usedDefaultPriorityName,
          noBatch: noBatch ?? active.noBatch,
          stack: opts.stack ?? active.stack ?? null,
        };
        // Joining a stack can make its base acceptable (the head branch of the member below).
        const readiness = {
          ...active.readiness,
          doesBaseBranchMatch: baseBranchMatches({
            prBaseBranch: active.prBaseBranch,
            queueBranch: queue.branch,
            stackBelowHeadBranch: set.stack?.belowHeadBranch ?? null,
          }),
        };
        const unchanged =
          active.priorityValue === set.priorityValue &&
          active.priorityName === set.priorityName &&
          active.noBatch === set.noBatch &&
          JSON.stringify(active.stack ?? null) === JSON.stringify(set.stack);
        if (unchanged) return active;
        const patched = await this.deps.store.entries.patch(active.id, active.version, { ...set, readiness });
        if (!patched) return CAS_LOST;
        this.deps.logger.info(
          { entryId: active.id, prNumber, priority: set.priorityValue, noBatch: set.noBatch, stack: set.stack },
          'resubmitted: priority/noBatch/stack updated',
        );
        await this.deps.requestPlan(queue.id, `pull request #${prNumber} resubmitted`);
        return patched;
      }
      if (pr.state !== 'open') throw conflict('pull_request_closed', `pull request #${prNumber} is closed`);
      // A draft cannot be merged, and the poller cancels queued drafts (pr_converted_to_draft):
      // accepting one would test it and then drop it at the next poll.
      if (pr.draft) throw conflict('pull_request_draft', `pull request #${prNumber} is a draft; mark it ready for review, then submit it`);
      if (pr.fromFork && this.deps.forksAllowed && !(await this.deps.forksAllowed(repo))) {
        throw forbidden(
          'fork_pull_request_not_allowed',
          `pull request #${prNumber} comes from a fork: CI on its test branch would run the fork's code with this repository's secrets. An admin can allow forks with updateGitHubRepository {allowForkPullRequests: true}`,
        );
      }
      const entry = await this.newEntry(queue, pr, priority, { noBatch: noBatch ?? false, direct: opts.direct ?? false }, describeActor(actor), opts.stack);
      // Another submission of the same pull request won the race: this one is a resubmit.
      if ((await this.deps.store.entries.insert(entry)) === 'exists') return CAS_LOST;
      this.deps.logger.info({ entryId: entry.id, queueId: queue.id, prNumber, sha: pr.headSha, stack: opts.stack }, 'pull request submitted');
      if (!(await this.deps.store.queues.findById(queue.id))) {
        // The queue was deleted between our read and the insert: do not leave an orphan behind.
        await this.deps.store.entries.transition(
          entry.id,
          { from: ACTIVE_ENTRY_STATES },
          { to: 'cancelled', reason: 'user_requested', detail: 'the queue was deleted' },
        );
        throw notFound('queue_not_found', `no merge queue for branch "${branch}"`);
      }
      await this.deps.requestPlan(queue.id, `pull request #${prNumber} submitted`);
      return entry;
    });
  }

  private async newEntry(
    queue: Queue,
    pr: PullRequestInfo,
    priority: { value: number; name: string; usedDefaultPriorityName: string },
    options: { noBatch: boolean; direct: boolean },
    requestedBy: string,
    stack: EntryStack | null,
  ): Promise<Entry> {
    const seq = await this.deps.store.queues.allocateSeq(queue.id);
    // Mergeability is decided by the planning pass this submission asks for, off the request.
    const readiness = await this.readiness.undecided(queue, { ...pr, stackBelowHeadBranch: stack?.belowHeadBranch ?? null });
    return submittedEntry({
      id: randomUUID(),
      orgId: queue.orgId,
      queueId: queue.id,
      pr: {
        number: pr.number,
        title: pr.title,
        headSha: pr.headSha,
        baseBranch: pr.baseBranch ?? queue.branch,
        author: pr.author,
        headBranch: pr.headBranch,
        labels: pr.labels,
      },
      priority,
      noBatch: options.noBatch,
      direct: options.direct,
      stack,
      seq,
      readiness,
      requestedBy,
      at: new Date(),
    });
  }

  async cancel(actor: Actor, repo: RepoRef, branch: string, prNumber: number): Promise<void> {
    requireCapability(actor, 'merge_and_cancel', 'cancelling a pull request');
    const queue = await this.deps.queues.get(actor.orgId, repo, branch);
    await retryCompareAndSet(ENTRY, async () => {
      const entry = await this.latestOrThrow(queue, prNumber);
      if (!ACTIVE_ENTRY_STATES.includes(entry.state)) {
        throw conflict('pr_not_active', `pull request #${prNumber} is not in the queue any more (it was ${entry.state})`);
      }
      const done = await this.deps.store.entries.transition(
        entry.id,
        { from: [entry.state], version: entry.version },
        { to: 'cancelled', reason: 'user_requested', detail: `cancelled by ${describeActor(actor)}`, ...runOf(entry) },
      );
      if (!done) return CAS_LOST;
      this.deps.logger.info({ entryId: entry.id, prNumber, from: entry.state }, 'pull request cancelled');
      await this.deps.requestPlan(queue.id, `pull request #${prNumber} cancelled`);
    });
  }

  async restartTests(actor: Actor, repo: RepoRef, branch: string, prNumber: number): Promise<void> {
    requireCapability(actor, 'merge_and_cancel', 'restarting the tests of a pull request');
    await this.restart(actor, repo, branch, prNumber, RESTARTABLE, 'only testing, tests_passed or pending_failure pull requests can be restarted');
  }

  /**
   * Re-runs the failed checks of a pull request pending failure (v2 rerun-failed-checks): its
   * group is tested again, every check of it, since the engine has no re-run of single checks.
   */
  async rerunFailedChecks(actor: Actor, repo: RepoRef, branch: string, prNumber: number): Promise<void> {
    requireCapability(actor, 'merge_and_cancel', 're-running the failed checks of a pull request');
    await this.restart(actor, repo, branch, prNumber, ['pending_failure'], 'only a pull request pending failure has failed checks to re-run');
  }

  private async restart(actor: Actor, repo: RepoRef, branch: string, prNumber: number, from: readonly EntryState[], onlyWhen: string): Promise<void> {
    const queue = await this.deps.queues.get(actor.orgId, repo, branch);
    await retryCompareAndSet(ENTRY, async () => {
      const entry = await this.latestOrThrow(queue, prNumber);
      if (!from.includes(entry.state)) throw conflict('pr_not_restartable', `pull request #${prNumber} is ${entry.state}; ${onlyWhen}`);
      const done = await this.deps.store.entries.transition(
        entry.id,
        { from: [entry.state], version: entry.version },
        { to: 'pending', reason: 'tests_restarted_by_api_request', restart: true, set: { currentRunId: null }, ...runOf(entry) },
      );
      if (!done) return CAS_LOST;
      this.deps.logger.info({ entryId: entry.id, prNumber, from: entry.state }, 'tests restarted');
      await this.deps.requestPlan(queue.id, `tests of pull request #${prNumber} restarted`);
    });
  }

  /**
   * Changes the priority, batching or direct admission of a pull request in the queue, keeping its
   * place in line; each field given needs its own permission (a priority: set priority; batching,
   * either way: skip batching; direct: direct to queue). 409 pr_not_active once it left the queue.
   */
  async updateEntry(actor: Actor, repo: RepoRef, branch: string, prNumber: number, change: EntryChange): Promise<Entry> {
    const priority = change.priority === undefined ? null : this.allowedPriority(actor, change.priority, 'changing the priority of');
    this.requireEntryOptions(actor, { noBatch: change.noBatch !== undefined, direct: change.direct !== undefined });
    const queue = await this.deps.queues.get(actor.orgId, repo, branch);
    return retryCompareAndSet(ENTRY, async () => {
      const entry = await this.latestOrThrow(queue, prNumber);
      if (!ACTIVE_ENTRY_STATES.includes(entry.state)) {
        throw conflict('pr_not_active', `pull request #${prNumber} is not in the queue any more (it was ${entry.state})`);
      }
      const set = {
        priorityValue: priority?.value ?? entry.priorityValue,
        priorityName: priority?.name ?? entry.priorityName,
        usedDefaultPriorityName: priority?.usedDefaultPriorityName ?? entry.usedDefaultPriorityName,
        noBatch: change.noBatch ?? entry.noBatch,
        forceEnqueued: change.direct ?? entry.forceEnqueued,
      };
      if ((Object.keys(set) as (keyof typeof set)[]).every((k) => set[k] === entry[k])) return entry;
      const patched = await this.deps.store.entries.patch(entry.id, entry.version, set);
      if (!patched) return CAS_LOST;
      this.deps.logger.info({ entryId: entry.id, prNumber, ...set, by: describeActor(actor) }, 'queue entry updated');
      await this.deps.requestPlan(queue.id, `pull request #${prNumber} updated`);
      return patched;
    });
  }

  /** The priority asked for, once the actor may set it (an explicit one needs set priority, urgent more). */
  private allowedPriority(actor: Actor, input: PriorityInput, what: string): ResolvedPriority {
    const resolved = resolvePriority(input);
    if (!resolved.ok) throw invalid('invalid_priority', resolved.message, [{ path: '/priority', message: resolved.message }]);
    if (input !== undefined && input !== null) requireCapability(actor, 'set_priority', `${what} a pull request with a priority`);
    if (isUrgentPriority(resolved.priority.value)) requireCapability(actor, 'urgent_priority', `${what} a pull request with the urgent priority`);
    return resolved.priority;
  }

  private requireEntryOptions(actor: Actor, asked: { noBatch: boolean; direct: boolean }): void {
    if (asked.noBatch) requireCapability(actor, 'skip_batching', 'choosing whether a pull request is batched');
    if (asked.direct) requireCapability(actor, 'direct_to_queue', 'admitting a pull request directly');
  }

  async getSubmitted(orgId: string, repo: RepoRef, branch: string, pr: { number: number } | { branch: string }): Promise<Entry> {
    const queue = await this.deps.queues.get(orgId, repo, branch);
    if ('number' in pr) return this.latestOrThrow(queue, pr.number);
    const entry = await this.deps.store.entries.findLatestByBranch(queue.id, pr.branch);
    if (!entry) throw notFound('pull_request_not_submitted', `no pull request from branch "${pr.branch}" was submitted to this queue`);
    return entry;
  }

  async setImpactedTargets(actor: Actor, repo: RepoRef, branch: string, prNumber: number, sha: string, targets: ImpactedTargets): Promise<void> {
    requireCapability(actor, 'merge_and_cancel', 'uploading impacted targets');
    const queue = await this.deps.queues.get(actor.orgId, repo, branch);
    const provider = await this.providerOf(repo);
    const pr = await this.pullRequestAt(provider, repo, prNumber);
    // An abbreviated sha of the current head names the head: store under the full sha, the
    // one readiness looks up (otherwise the upload would be kept but never count).
    const given = sha.toLowerCase();
    const head = pr.headSha.toLowerCase();
    const forSha = head.startsWith(given) ? head : given;
    await this.deps.store.impactedTargets.set(queue.id, prNumber, forSha, targets);
    this.deps.logger.info({ queueId: queue.id, prNumber, sha: forSha, targets: targets === 'ALL' ? 'ALL' : targets.length }, 'impacted targets stored');
    // Compare-and-set, retried: a concurrent change of the entry (a resubmission, the provider
    // poller) must not make this upload's readiness change vanish — nothing else would redo it
    // until the head or the target moved.
    await retryCompareAndSet(ENTRY, async () => {
      const active = await this.deps.store.entries.findActiveByPr(queue.id, prNumber);
      if (!active || active.prSha.toLowerCase() !== forSha) return;
      if (!active.readiness.hasImpactedTargets) {
        const patched = await this.deps.store.entries.patch(active.id, active.version, { readiness: { ...active.readiness, hasImpactedTargets: true } });
        if (!patched) return CAS_LOST;
      }
      // New targets for a queued head can change its lanes (parallel mode) as well as its readiness.
      await this.deps.requestPlan(queue.id, `impacted targets uploaded for pull request #${prNumber}`);
    });
  }

  /**
   * listPullRequests: newest submissions first, `take` at a time; the cursor is the id of the
   * last entry of the previous page.
   */
  async list(orgId: string, repo: RepoRef, branch: string, opts: { state?: EntryState; since?: Date; cursor?: string; take: number }): Promise<ListPage> {
    const queue = await this.deps.queues.get(orgId, repo, branch);
    const query: EntryPageQuery = { limit: opts.take + 1 };
    if (opts.since) {
      // `since` selects pull requests that concluded since then; a non-final state filter selects none.
      query.states = TERMINAL_ENTRY_STATES.filter((s) => !opts.state || s === opts.state);
      query.changedSince = opts.since;
    } else if (opts.state) {
      query.states = [opts.state];
    }
    if (opts.cursor) {
      const after = await this.deps.store.entries.findById(opts.cursor);
      if (!after || after.queueId !== queue.id)
        throw invalid('invalid_cursor', 'the cursor does not belong to this queue', [{ path: '/cursor', message: 'unknown cursor' }]);
      query.beforeSeq = after.seq;
    }
    const entries = await this.deps.store.entries.listPage(queue.id, query);
    const page = entries.slice(0, opts.take);
    const last = page.at(-1);
    return { entries: page, nextCursor: entries.length > opts.take && last ? last.id : null };
  }

  private async latestOrThrow(queue: Queue, prNumber: number): Promise<Entry> {
    const entry = await this.deps.store.entries.findLatestByPr(queue.id, prNumber);
    if (!entry) throw notFound('pull_request_not_submitted', `pull request #${prNumber} was never submitted to this queue`);
    return entry;
  }

  /** The pull request as the provider sees it; 404 when it has none (numbers start at 1, so #0 never exists). */
  private async pullRequestAt(provider: GitProvider, repo: RepoRef, prNumber: number): Promise<PullRequestInfo> {
    const pr = prNumber >= 1 ? await provider.getPullRequest(repo, prNumber) : null;
    if (!pr) throw notFound('pull_request_not_found', `pull request #${prNumber} does not exist in ${repo.owner}/${repo.name}`);
    return pr;
  }

  private async providerOf(repo: RepoRef): Promise<GitProvider> {
    const provider = await this.deps.providers.providerFor(repo);
    if (!provider) throw repositoryNotFound(repo);
    return provider;
  }
}

/** The run an entry leaves, named on the transition that makes it leave (the cost report attributes it). */
export function runOf(entry: Entry): { testRunId?: string } {
  return entry.currentRunId ? { testRunId: entry.currentRunId } : {};
}
