// The one typed catalogue of BullMQ jobs: each job name maps to its payload type and to its
// options. The producer (enqueue<K>) and the worker's processor registry are both driven by it, so a
// payload or a processor that does not fit its queue is a compile error, and every option of a job
// (attempts, backoff, retention, deduplication, schedule, concurrency) is read in one table.
//
// Jobs carry ids, never documents or secrets; processors reload state from the database. Each job
// name is also the name of its BullMQ queue.

export interface PlanJob {
  queueId: string;
  /** Why the pass was requested (logged). */
  why: string;
  requestId?: string;
}

export interface TimeoutJob {
  queueId: string;
  testRunId: string;
  /** The run's deadline (epoch ms) when the check was scheduled: a restarted run has a new one. */
  deadlineAt: number;
}

export interface StatusWatchJob {
  queueId: string;
  testRunId: string;
}

export interface WakeJob {
  queueId: string;
  why: string;
}

export interface FlakyIngestJob {
  /** The repository whose received uploads are processed (all of them, oldest first). */
  repoId: string;
  /** The upload that asked for the job (logged). */
  uploadId: string;
}

export interface PublishEventJob {
  eventId: string;
}

export interface DeliverWebhookJob {
  deliveryId: string;
}

export interface GitHubWebhookJob {
  /** X-GitHub-Delivery: the recorded delivery (its payload is in the database, not in Redis). */
  deliveryId: string;
}

/** A periodic job: everything it needs is read from stored state. */
export type PeriodicJob = Record<string, never>;

export interface JobPayloads {
  /** One planning pass for one merge queue; deduplicated per queue. */
  plan: PlanJob;
  /** A delayed check that a test run finished in time (guarded by run id + deadline). */
  timeout: TimeoutJob;
  /** Delayed wake-up of a queue's planner (batch max-wait, not-ready timeouts, …). */
  wake: WakeJob;
  /** The stall watchdog's delayed look at a built run's required statuses (statusWaitMinutes). */
  'status-watch': StatusWatchJob;
  /** Periodic: poll providers for pushes, closes and target moves. */
  sync: PeriodicJob;
  /** Periodic: re-plan queues whose stored state says work is due. */
  reconcile: PeriodicJob;
  /** Flaky tests: process a repository's received uploads; deduplicated per repository. */
  'flaky-ingest': FlakyIngestJob;
  /** Flaky tests, periodic: statuses that change with time; uploads left waiting by a crash. */
  'flaky-refresh': PeriodicJob;
  /** One verified GitHub webhook delivery: sync the repository's queues or record a CI result. */
  'github-webhook': GitHubWebhookJob;
  /** Periodic: read back from GitHub the CI results of runs that have waited (lost deliveries). */
  'github-ci-results': PeriodicJob;
  /** Periodic: publish queued pull requests' queue state (statusCheckEnabled, commentsEnabled). */
  'github-pr-feedback': PeriodicJob;
  /** Periodic: open draft pull requests for test branches, close those of ended runs (createPrsForTestingBranches). */
  'github-test-branch-prs': PeriodicJob;
  /** Render a domain event and create its deliveries to the subscribed webhook endpoints. */
  'publish-event': PublishEventJob;
  /** One attempt of one delivery (endpoint, event); retries are new delayed jobs (docs/webhooks.md). */
  'deliver-webhook': DeliverWebhookJob;
  /** Periodic: publish events and re-enqueue deliveries whose jobs were lost. */
  'event-sweep': PeriodicJob;
}

export type JobName = keyof JobPayloads;

/** The configuration setting (in seconds) that sets a periodic job's interval. */
export type ScheduleSetting = 'providerPollSeconds' | 'reconcileSeconds' | 'flakyRefreshSeconds';

export interface JobSpec<K extends JobName> {
  /** Tries in all; a failure before the last is retried after `backoffMs` (doubling). */
  attempts: number;
  backoffMs: number;
  /** Jobs run at once per worker process. */
  concurrency: number;
  /** Finished jobs kept for inspection; every job keeps KEEP_COMPLETED and KEEP_FAILED unless it says otherwise. */
  keepCompleted?: { count: number; ageSeconds: number };
  keepFailed?: { count: number; ageSeconds: number };
  /**
   * At most one such job waits while one runs (the latest payload wins); none runs twice at once.
   * BullMQ deduplication with keepLastIfActive.
   */
  deduplicateBy?: (payload: JobPayloads[K]) => string;
  /** A fixed job id: enqueueing the same id again is a no-op (delayed checks, wake-ups). */
  jobId?: (payload: JobPayloads[K], runAt: number) => string;
  /** Periodic jobs: upserted as a job scheduler by every worker process, every `setting` seconds. */
  every?: ScheduleSetting;
}

const KEEP_COMPLETED = { count: 1000, ageSeconds: 3600 };
const KEEP_FAILED = { count: 5000, ageSeconds: 7 * 86400 };

export const JOB_SPECS: { readonly [K in JobName]: JobSpec<K> } = {
  plan: {
    // A failed pass is tried again soon; the reconciler re-plans anything still due after that.
    attempts: 3,
    backoffMs: 1000,
    // Passes of one merge queue never overlap (deduplication), passes of different queues do.
    concurrency: 8,
    deduplicateBy: (p) => `plan-${p.queueId}`,
  },
  timeout: {
    attempts: 5,
    backoffMs: 2000,
    concurrency: 4,
    jobId: (p) => `timeout-${p.testRunId}-${p.deadlineAt}`,
  },
  wake: {
    attempts: 5,
    backoffMs: 1000,
    concurrency: 4,
    // One wake-up per queue and instant: many reasons to wake at the same moment cost one pass.
    jobId: (p, runAt) => `wake-${p.queueId}-${runAt}`,
  },
  'status-watch': {
    attempts: 5,
    backoffMs: 2000,
    concurrency: 4,
    // One look per run: a run is built once.
    jobId: (p) => `status-watch-${p.testRunId}`,
  },
  sync: {
    // The next period is the retry.
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    every: 'providerPollSeconds',
  },
  reconcile: {
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    every: 'reconcileSeconds',
  },
  'flaky-ingest': {
    // A job that dies mid-upload is run again: the upload restarts from its stored blobs.
    attempts: 5,
    backoffMs: 1000,
    // Uploads of one repository are processed one at a time (deduplication), of different ones at once.
    concurrency: 4,
    deduplicateBy: (p) => `flaky-ingest-${p.repoId}`,
  },
  'flaky-refresh': {
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    every: 'flakyRefreshSeconds',
  },
  'github-webhook': {
    // GitHub does not redeliver: a failing delivery is tried again here, then left to the poller.
    attempts: 5,
    backoffMs: 1000,
    concurrency: 4,
    // A delivery is processed once even if enqueued twice.
    jobId: (p) => `github-webhook-${p.deliveryId}`,
  },
  'github-ci-results': {
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    // As slow as the reconciler: it only catches what webhooks lost, within GitHub's rate limits.
    every: 'reconcileSeconds',
  },
  'github-pr-feedback': {
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    // It posts only what changed since the last pass, so it can follow the provider poll.
    every: 'providerPollSeconds',
  },
  'github-test-branch-prs': {
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    // Each planning pass of a GitHub queue does its queue at once; this pass catches what those
    // missed (a failed call to GitHub, a crash), so it can be as slow as the reconciler.
    every: 'reconcileSeconds',
  },
  'publish-event': {
    attempts: 5,
    backoffMs: 1000,
    concurrency: 4,
  },
  'deliver-webhook': {
    // These attempts cover the processor's own failures (database down); a receiver's failures
    // are retried by the dispatcher with its own backoff (WEBHOOK_RETRY_BASE_MS).
    attempts: 3,
    backoffMs: 1000,
    // Deliveries wait on receivers, not on this process: many at once.
    concurrency: 16,
  },
  'event-sweep': {
    attempts: 1,
    backoffMs: 0,
    concurrency: 1,
    every: 'reconcileSeconds',
  },
};

export const JOB_NAMES = Object.keys(JOB_SPECS) as JobName[];

/** BullMQ's retention options of a job (shared by enqueue, schedulers and workers). */
export function retentionOf(name: JobName): { removeOnComplete: { count: number; age: number }; removeOnFail: { count: number; age: number } } {
  const completed = JOB_SPECS[name].keepCompleted ?? KEEP_COMPLETED;
  const failed = JOB_SPECS[name].keepFailed ?? KEEP_FAILED;
  return {
    removeOnComplete: { count: completed.count, age: completed.ageSeconds },
    removeOnFail: { count: failed.count, age: failed.ageSeconds },
  };
}
