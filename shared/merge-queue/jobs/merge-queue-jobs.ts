// The merge queue's jobs: planning passes and the delayed checks and wake-ups that ask for them,
// the provider poll and the reconciler, with the verbs the services use to ask for them.
import Type from 'typebox';
import { jobSpec, type Enqueue } from '../../platform/jobs/job-catalogue.js';

const queueId = Type.String({ minLength: 1 });
const testRunId = Type.String({ minLength: 1 });
const periodic = Type.Object({});

/**
 * How often the schedule watcher looks: a closure's events and getQueue's window lag its start by
 * at most this much (the planner itself reads the schedule to the second).
 */
const MERGE_WINDOW_CHECK_SECONDS = 30;
/** How often queue objectives are measured: a level's `forMinutes` is honoured to within this. */
const OBJECTIVE_CHECK_SECONDS = 60;
/** How often due digests are looked for: a digest goes out within this of its local time. */
const DIGEST_CHECK_SECONDS = 60;

export function mergeQueueJobs(intervals: { providerPollSeconds: number; reconcileSeconds: number }) {
  return {
    /** One planning pass for one merge queue; deduplicated per queue. */
    plan: jobSpec({
      payload: Type.Object({ queueId, why: Type.String() }),
      // A failed pass is tried again soon; the reconciler re-plans anything still due after that.
      attempts: 3,
      backoffMs: 1000,
      // Passes of one merge queue never overlap (deduplication), passes of different queues do.
      concurrency: 8,
      deduplicateBy: (p) => `plan-${p.queueId}`,
    }),
    /** A delayed check that a test run finished in time (guarded by run id + deadline). */
    timeout: jobSpec({
      // The run's deadline (epoch ms) when the check was scheduled: a restarted run has a new one.
      payload: Type.Object({ queueId, testRunId, deadlineAt: Type.Integer() }),
      attempts: 5,
      backoffMs: 2000,
      concurrency: 4,
      jobId: (p) => `timeout-${p.testRunId}-${p.deadlineAt}`,
    }),
    /** Delayed wake-up of a queue's planner (batch max-wait, not-ready timeouts, …). */
    wake: jobSpec({
      payload: Type.Object({ queueId, why: Type.String() }),
      attempts: 5,
      backoffMs: 1000,
      concurrency: 4,
      // One wake-up per queue and instant: many reasons to wake at the same moment cost one pass.
      jobId: (p, runAt) => `wake-${p.queueId}-${runAt}`,
    }),
    /** The stall watchdog's delayed look at a built run's required statuses (statusWaitMinutes). */
    'status-watch': jobSpec({
      payload: Type.Object({ queueId, testRunId }),
      attempts: 5,
      backoffMs: 2000,
      concurrency: 4,
      // One look per run: a run is built once.
      jobId: (p) => `status-watch-${p.testRunId}`,
    }),
    /** Periodic: poll providers for pushes, closes and target moves. */
    sync: jobSpec({ payload: periodic, attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: intervals.providerPollSeconds }),
    /** Periodic: read scheduled queues' merge windows, store changes and announce them (freezes, their forecast, their end). */
    'merge-windows': jobSpec({ payload: periodic, attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: MERGE_WINDOW_CHECK_SECONDS }),
    /** Periodic: measure queues' objectives, store their levels and announce changes (breached, recovered). */
    'queue-objectives': jobSpec({ payload: periodic, attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: OBJECTIVE_CHECK_SECONDS }),
    /** Periodic: send the daily or weekly digest of queues whose period has ended. */
    'queue-digests': jobSpec({ payload: periodic, attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: DIGEST_CHECK_SECONDS }),
    /** Periodic: re-plan queues whose stored state says work is due. */
    reconcile: jobSpec({ payload: periodic, attempts: 1, backoffMs: 0, concurrency: 1, everySeconds: intervals.reconcileSeconds }),
  };
}

export type MergeQueueJobs = ReturnType<typeof mergeQueueJobs>;

/** How the merge queue's services ask for its jobs. */
export interface MergeQueueScheduler {
  /**
   * Asks for a planning pass of one merge queue. While a pass is running, at most one more is
   * kept (with the latest reason), so a burst of events costs at most two passes, and two passes
   * for one queue never run at once.
   */
  requestPlan(queueId: string, why: string): Promise<void>;
  /** A delayed check that run `testRunId` concluded before its deadline. */
  scheduleTimeout(queueId: string, testRunId: string, deadlineAt: Date): Promise<void>;
  /** The stall watchdog's look at a built run, once statusWaitMinutes have passed. */
  scheduleStatusWatch(queueId: string, testRunId: string, at: Date): Promise<void>;
  /** A delayed planning pass (batch max-wait, deadlines); one per queue and instant. */
  scheduleWake(queueId: string, at: Date, why: string): Promise<void>;
}

export function mergeQueueScheduler(enqueue: Enqueue<MergeQueueJobs>): MergeQueueScheduler {
  return {
    requestPlan: (queueId, why) => enqueue('plan', { queueId, why }),
    scheduleTimeout: (queueId, testRunId, deadlineAt) => enqueue('timeout', { queueId, testRunId, deadlineAt: deadlineAt.getTime() }, { runAt: deadlineAt }),
    scheduleStatusWatch: (queueId, testRunId, at) => enqueue('status-watch', { queueId, testRunId }, { runAt: at }),
    scheduleWake: (queueId, at, why) => enqueue('wake', { queueId, why }, { runAt: at }),
  };
}
