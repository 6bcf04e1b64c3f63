// Keeps queued pull requests in step with the forge: cancels entries whose pull request was
// pushed to, closed or retargeted (a stack member pushed to waits for readiness on its new head
// instead, and its unit is tested again), re-evaluates readiness when the target or the head
// moved, keeps each entry's labels as the forge has them (a schedule's exception labels read
// them), and asks for a planning pass when anything changed (including the target branch moving).
import { runOf } from './pull-request-service.js';
import type { Entry, Queue } from '../domain/model.js';
import { syncDecision } from '../domain/pr-sync.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { GitProvider, ProviderRegistry, PullRequestInfo } from './provider.js';
import type { Logger } from '../../platform/logging.js';
import { ReadinessService } from './readiness-service.js';

/** When the poller syncs a queue: a forge that notifies changes itself may be polled less often. */
export interface PollSchedule {
  due(queue: Queue, now: Date): Promise<boolean>;
  polled(queue: Queue, now: Date): Promise<void>;
}

export interface SyncServiceDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'impactedTargets'>;
  providers: ProviderRegistry;
  logger: Logger;
  requestPlan: (queueId: string, why: string) => Promise<void>;
  /** Absent: every queue is polled at every run of the poller. */
  pollSchedule?: PollSchedule;
}

export interface PollOutcome {
  polled: number;
  /** Queues not due (their forge's webhooks are arriving). */
  skipped: number;
}

export interface SyncOutcome {
  /** Entries that left the queue because of a change at the forge. */
  ended: number;
  /** Stack members pushed to: back to not_ready on their new head, their units tested again. */
  restarted: number;
  refreshed: number;
  /** Entries whose labels changed at the forge. */
  relabelled: number;
  targetMoved: boolean;
}

/** Whether the forge's labels differ from the entry's (order aside). */
function labelsChanged(entry: Entry, pr: PullRequestInfo): boolean {
  const known = entry.prLabels ?? [];
  return known.length !== pr.labels.length || pr.labels.some((l) => !known.includes(l));
}

export class SyncService {
  private readonly readiness: ReadinessService;

  constructor(private readonly deps: SyncServiceDeps) {
    this.readiness = new ReadinessService({ store: deps.store });
  }

  /** Syncs every queue that has active entries. */
  async syncAll(): Promise<void> {
    await this.syncQueues(async () => true);
  }

  /** The provider poller's job: syncs the queues with active entries that are due for a poll. */
  async poll(now = new Date()): Promise<PollOutcome> {
    const schedule = this.deps.pollSchedule;
    const outcome: PollOutcome = { polled: 0, skipped: 0 };
    outcome.polled = await this.syncQueues(
      async (queue) => {
        const due = !schedule || (await schedule.due(queue, now));
        if (!due) outcome.skipped++;
        return due;
      },
      schedule ? (queue) => schedule.polled(queue, now) : undefined,
    );
    return outcome;
  }

  /** Returns how many queues were synced. */
  private async syncQueues(due: (queue: Queue) => Promise<boolean>, synced?: (queue: Queue) => Promise<void>): Promise<number> {
    let count = 0;
    const active = await this.deps.store.entries.listActiveAll();
    const queueIds = [...new Set(active.map((e) => e.queueId))];
    for (const queueId of queueIds) {
      const queue = await this.deps.store.queues.findById(queueId);
      if (!queue) continue;
      try {
        if (!(await due(queue))) continue;
        await this.syncQueue(
          queue,
          active.filter((e) => e.queueId === queueId),
        );
        count++;
        await synced?.(queue);
      } catch (err) {
        this.deps.logger.error({ err, queueId }, 'sync of queue failed; retried on the next poll');
      }
    }
    return count;
  }

  /**
   * The queue's pull requests as the provider sees them, read in one batch (one git process for
   * the whole queue). If the batch fails, each is read on its own, so one unreadable pull request
   * (e.g. a malformed pulls/N.json) does not stop pushes, closes and readiness of every other
   * pull request from being noticed; an unreadable one is absent from the result.
   */
  private async readPullRequests(provider: GitProvider, queue: Queue, entries: Entry[]): Promise<Map<number, PullRequestInfo | null>> {
    const numbers = entries.map((e) => e.prNumber);
    try {
      return await provider.getPullRequests(queue.repo, numbers);
    } catch {
      const result = new Map<number, PullRequestInfo | null>();
      for (const n of numbers) {
        try {
          result.set(n, await provider.getPullRequest(queue.repo, n));
        } catch (err) {
          this.deps.logger.error({ err, queueId: queue.id, prNumber: n }, 'pull request could not be read; left as it is until the next poll');
        }
      }
      return result;
    }
  }

  async syncQueue(queue: Queue, entries?: Entry[]): Promise<SyncOutcome> {
    const outcome: SyncOutcome = { ended: 0, restarted: 0, refreshed: 0, relabelled: 0, targetMoved: false };
    const provider = await this.deps.providers.providerFor(queue.repo);
    if (!provider) {
      this.deps.logger.warn({ queueId: queue.id, repo: queue.repo }, 'repository not found by any provider; queue not synced');
      return outcome;
    }
    const targetSha = await provider.branchHead(queue.repo, queue.branch);
    outcome.targetMoved = await this.deps.store.queues.observeTargetHead(queue.id, targetSha);
    const active = entries ?? (await this.deps.store.entries.listActive(queue.id));
    const pulls = await this.readPullRequests(provider, queue, active);
    for (const entry of active) {
      if (!pulls.has(entry.prNumber)) continue;
      const pr = pulls.get(entry.prNumber) ?? null;
      const decision = syncDecision(entry, pr, { branch: queue.branch, mode: queue.pendingMode ?? queue.mode, targetSha });
      if (decision.kind === 'cancel') {
        const done = await this.deps.store.entries.transition(
          entry.id,
          { from: [entry.state], version: entry.version },
          { to: 'cancelled', reason: decision.reason, detail: decision.detail, ...runOf(entry) },
        );
        if (done) {
          outcome.ended++;
          this.deps.logger.info({ entryId: entry.id, prNumber: entry.prNumber, reason: decision.reason }, 'pull request cancelled: changed at the forge');
        }
      } else if (decision.kind === 'merged_outside_queue') {
        const done = await this.deps.store.entries.transition(
          entry.id,
          { from: [entry.state], version: entry.version },
          { to: 'merged', reason: 'manual_merge', detail: decision.detail },
        );
        if (done) {
          outcome.ended++;
          this.deps.logger.info({ entryId: entry.id, prNumber: entry.prNumber }, 'pull request merged outside the queue');
        }
      } else if (decision.kind === 'restart_stack_member') {
        // The planner sees the member leave its run and restarts the run's other members; those
        // of its stack then wait for it to be ready again (planner/admission.ts).
        const inFlight = entry.state !== 'not_ready' && entry.state !== 'pending';
        const done = await this.deps.store.entries.transition(
          entry.id,
          { from: [entry.state], version: entry.version },
          {
            to: 'not_ready',
            reason: decision.reason,
            detail: decision.detail,
            restart: inFlight,
            set: { prSha: decision.headSha, currentRunId: null, bisectionOf: null, readinessBasis: null },
            ...runOf(entry),
          },
        );
        if (done) {
          outcome.restarted++;
          this.deps.logger.info(
            { entryId: entry.id, prNumber: entry.prNumber, headSha: decision.headSha },
            'stack member pushed to: its stack is tested again',
          );
          if (pr && targetSha) await this.refreshReadiness(queue, done, pr, provider, targetSha);
        }
      } else if (decision.kind === 'refresh_readiness' && pr && targetSha) {
        const relabelled = labelsChanged(entry, pr);
        if (await this.refreshReadiness(queue, entry, pr, provider, targetSha)) outcome.refreshed++;
        else if (relabelled) outcome.relabelled++;
      } else if (decision.kind === 'none' && pr && labelsChanged(entry, pr)) {
        if (await this.deps.store.entries.patch(entry.id, entry.version, { prLabels: pr.labels })) outcome.relabelled++;
      }
    }
    if (outcome.ended > 0 || outcome.restarted > 0 || outcome.refreshed > 0 || outcome.relabelled > 0 || outcome.targetMoved) {
      const why = [
        outcome.targetMoved ? 'target branch moved' : '',
        outcome.ended ? `${outcome.ended} ended by changes at the forge` : '',
        outcome.restarted ? `${outcome.restarted} stack members pushed to` : '',
        outcome.refreshed ? `${outcome.refreshed} readiness changed` : '',
        outcome.relabelled ? `${outcome.relabelled} labels changed` : '',
      ]
        .filter(Boolean)
        .join(', ');
      await this.deps.requestPlan(queue.id, why);
    }
    return outcome;
  }

  /** Evaluates readiness again and stores it; true when it changed. */
  private async refreshReadiness(queue: Queue, entry: Entry, pr: PullRequestInfo, provider: GitProvider, targetSha: string): Promise<boolean> {
    const subject = { ...pr, stackBelowHeadBranch: entry.stack?.belowHeadBranch ?? null };
    const { readiness, basis } = await this.readiness.evaluate(queue, subject, provider, targetSha);
    const updated = await this.deps.store.entries.patch(entry.id, entry.version, {
      readiness,
      prBaseBranch: pr.baseBranch ?? queue.branch,
      prLabels: pr.labels,
      readinessBasis: basis,
    });
    return updated !== null && JSON.stringify(readiness) !== JSON.stringify(entry.readiness);
  }
}
