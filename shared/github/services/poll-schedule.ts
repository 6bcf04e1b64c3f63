// The provider poll of GitHub repositories, slower while webhooks arrive. The sync job runs every
// PROVIDER_POLL_SECONDS for every queue; a queue of a GitHub repository whose signed deliveries
// (or its installation's) arrived within GITHUB_WEBHOOK_QUIET_SECONDS is polled only every
// GITHUB_WEBHOOK_POLL_SECONDS, because the deliveries tell the queue about changes. When they stop
// (a broken webhook, GitHub's lost deliveries) the normal interval is back after the quiet time:
// lost deliveries delay the queue, never wedge it.
import type { Queue } from '../../merge-queue/domain/model.js';
import type { PollSchedule } from '../../merge-queue/services/sync-service.js';
import { repoKey } from '../../platform/repo-ref.js';
import type { GitHubApi } from '../../providers/github/github-api.js';
import type { PollStateRepository } from '../store/poll-state-repository.js';

export interface PollIntervals {
  /** PROVIDER_POLL_SECONDS: how often the sync job runs. */
  normalSeconds: number;
  /** GITHUB_WEBHOOK_POLL_SECONDS. */
  webhookSeconds: number;
  /** GITHUB_WEBHOOK_QUIET_SECONDS. */
  quietSeconds: number;
}

/** The interval a repository is polled at now: the slower one while its deliveries are recent. */
export function pollIntervalSeconds(lastDeliveryAt: Date | null, now: Date, intervals: PollIntervals): number {
  const recent = lastDeliveryAt !== null && now.getTime() - lastDeliveryAt.getTime() < intervals.quietSeconds * 1000;
  return recent ? intervals.webhookSeconds : intervals.normalSeconds;
}

/**
 * Whether a queue is due for a poll at this run of the sync job. Half a job period of slack, so
 * that the job's own jitter never makes a due poll wait a whole period more (at the normal
 * interval, every run polls).
 */
export function pollDue(times: { lastPolledAt: Date | null; lastDeliveryAt: Date | null }, now: Date, intervals: PollIntervals): boolean {
  if (times.lastPolledAt === null) return true;
  const elapsedMs = now.getTime() - times.lastPolledAt.getTime();
  return elapsedMs + (intervals.normalSeconds * 1000) / 2 >= pollIntervalSeconds(times.lastDeliveryAt, now, intervals) * 1000;
}

export class GitHubPollSchedule implements PollSchedule {
  constructor(private readonly deps: { state: PollStateRepository; api: Pick<GitHubApi, 'serves'>; intervals: PollIntervals }) {}

  async due(queue: Queue, now: Date): Promise<boolean> {
    if (!this.deps.api.serves(queue.repo)) return true;
    const [lastPolledAt, lastDeliveryAt] = await Promise.all([this.deps.state.lastPolled(queue.id), this.deps.state.lastDeliveryFor(repoKey(queue.repo))]);
    return pollDue({ lastPolledAt, lastDeliveryAt }, now, this.deps.intervals);
  }

  async polled(queue: Queue, now: Date): Promise<void> {
    if (this.deps.api.serves(queue.repo)) await this.deps.state.polled(queue.id, now);
  }
}
