// The one typed map of BullMQ queue names to job payloads. Jobs carry ids, never documents or
// secrets; processors reload state from MongoDB.

export const JOB_QUEUES = {
  /** One planning pass for one merge queue; deduplicated per queue. */
  plan: 'plan',
  /** A delayed check that a test run finished in time (guarded by run id + attempt). */
  timeout: 'timeout',
  /** Delayed wake-up of a queue's planner (batch max-wait, not-ready timeouts, …). */
  wake: 'wake',
  /** Periodic: poll providers for pushes, closes and target moves. */
  sync: 'sync',
  /** Periodic: re-plan queues whose stored state says work is due. */
  reconcile: 'reconcile',
} as const;

export type JobQueueName = (typeof JOB_QUEUES)[keyof typeof JOB_QUEUES];

export interface PlanJob {
  queueId: string;
  /** Why the pass was requested (logged). */
  why: string;
  requestId?: string;
}

export interface TimeoutJob {
  queueId: string;
  testRunId: string;
  /** The run's deadline (epoch ms) when the check was scheduled: the attempt it guards. */
  attempt: number;
}

export interface WakeJob {
  queueId: string;
  why: string;
}
