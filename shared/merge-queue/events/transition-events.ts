// Which merge-queue change announces which event (the hosted product's names, wire-contract §5.1):
// a pull request submitted or changing state, a batch run starting or ending, the last pull request
// of a batch reaching merged or pending failure, a queue changing state. Pure: the repositories
// write what these return into the outbox of the document they change, in the same update.
import {
  DIGEST_EVENT,
  type BatchEventType,
  type FreezeEventType,
  type MergeQueueEvent,
  type ObjectiveEventType,
  type PullRequestEventType,
} from './event-types.js';
import { digestJson, type QueueDigest } from '../domain/digest.js';
import { OBJECTIVE_UNITS, type ObjectiveStatus, type QueueObjective } from '../domain/objectives.js';
import type { Entry, EntryState, QueueState, Reason, TargetBreak, TestRun } from '../domain/model.js';
import type { ClosureView } from '../domain/merge-window.js';
import type { ForecastItem } from '../domain/freeze-forecast.js';

/** The event a transition into `state` emits; states without one (not_ready, tests_passed) emit none. */
export const EVENT_OF_STATE: Readonly<Partial<Record<EntryState, PullRequestEventType>>> = {
  pending: 'pull_request.queued',
  testing: 'pull_request.testing',
  pending_failure: 'pull_request.pending_failure',
  merged: 'pull_request.merged',
  failed: 'pull_request.failed',
  cancelled: 'pull_request.canceled',
};

/** Entry states whose batch event fires when the last pull request of the batch reaches them. */
export const BATCH_EVENT_OF_STATE = {
  merged: 'pull_request_batch.merged',
  pending_failure: 'pull_request_batch.pending_failure',
} as const satisfies Partial<Record<EntryState, BatchEventType>>;

type BatchState = keyof typeof BATCH_EVENT_OF_STATE;

export const isBatchState = (state: EntryState): state is BatchState => state in BATCH_EVENT_OF_STATE;

export const isBatch = (run: Pick<TestRun, 'entryIds'>) => run.entryIds.length > 1;

const prOrderKey = (e: Pick<Entry, 'queueId' | 'prNumber'>) => `pr:${e.queueId}:${e.prNumber}`;
const runOrderKey = (runId: string) => `run:${runId}`;

export function submittedEvent(entry: Entry): MergeQueueEvent {
  return {
    orgId: entry.orgId,
    type: 'pull_request.submitted',
    orderKey: prOrderKey(entry),
    order: { at: entry.submittedAt, version: entry.version },
    subject: { queueId: entry.queueId, entryId: entry.id, reason: entry.lastReason },
  };
}

/** What a transition writes with the entry it changes; `version` and `at` are the entry's after the write. */
export interface EntryTransitionFacts {
  entry: Pick<Entry, 'id' | 'orgId' | 'queueId' | 'prNumber' | 'currentRunId' | 'verifiedByTestRun'>;
  to: EntryState;
  reason: Reason;
  detail?: string;
  testRunId?: string;
  at: Date;
  version: number;
}

/** The run a transition is about: the one it names, else the entry's current or verifying run. */
export const runOfTransition = (f: Pick<EntryTransitionFacts, 'entry' | 'testRunId'>): string | null =>
  f.testRunId ?? f.entry.currentRunId ?? f.entry.verifiedByTestRun ?? null;

export function transitionEvent(f: EntryTransitionFacts): MergeQueueEvent | null {
  const type = EVENT_OF_STATE[f.to];
  if (!type) return null;
  return {
    orgId: f.entry.orgId,
    type,
    orderKey: prOrderKey(f.entry),
    order: { at: f.at, version: f.version },
    subject: {
      queueId: f.entry.queueId,
      entryId: f.entry.id,
      runId: runOfTransition(f),
      reason: f.reason,
      ...(f.detail !== undefined ? { detail: f.detail } : {}),
    },
  };
}

/**
 * The batch event of the last pull request of `run` reaching `state`. Its id is fixed by run and
 * type: two writers that each see themselves as last store it once.
 */
export function batchArrivalEvent(
  run: Pick<TestRun, 'id' | 'orgId' | 'queueId'>,
  state: BatchState,
  reason: Reason,
  at: Date,
): MergeQueueEvent & { id: string } {
  const type = BATCH_EVENT_OF_STATE[state];
  return {
    id: `${run.id}.${type}`,
    orgId: run.orgId,
    type,
    orderKey: runOrderKey(run.id),
    order: { at, version: 1 },
    subject: { queueId: run.queueId, runId: run.id, reason },
  };
}

/** pull_request_batch.testing when a run of several pull requests starts. */
export function batchStartedEvent(run: TestRun): MergeQueueEvent | null {
  if (!isBatch(run)) return null;
  return {
    orgId: run.orgId,
    type: 'pull_request_batch.testing',
    orderKey: runOrderKey(run.id),
    order: { at: run.createdAt, version: 0 },
    subject: { queueId: run.queueId, runId: run.id },
  };
}

/** pull_request_batch.failed / .canceled when such a run ends that way. */
export function batchConcludedEvent(
  run: Pick<TestRun, 'id' | 'orgId' | 'queueId' | 'entryIds'>,
  status: TestRun['status'],
  reason: Reason,
  at: Date,
): MergeQueueEvent | null {
  if (!isBatch(run) || (status !== 'failed' && status !== 'cancelled')) return null;
  return {
    orgId: run.orgId,
    type: status === 'failed' ? 'pull_request_batch.failed' : 'pull_request_batch.canceled',
    orderKey: runOrderKey(run.id),
    order: { at, version: 1 },
    subject: { queueId: run.queueId, runId: run.id, reason },
  };
}

export function queueStateChangedEvent(
  queue: { id: string; orgId: string },
  previous: QueueState,
  state: QueueState,
  at: Date,
  version: number,
): MergeQueueEvent {
  return {
    orgId: queue.orgId,
    type: 'queue.state_changed',
    orderKey: `queue:${queue.id}`,
    order: { at, version },
    subject: { queueId: queue.id, previousState: previous, state },
  };
}

/** queue.freeze_announced (with its forecast), .freeze_started, .freeze_ended: a closure of the queue's schedule. */
export function freezeEvent(
  queue: { id: string; orgId: string },
  type: FreezeEventType,
  closure: ClosureView,
  forecast: readonly ForecastItem[] | null,
  at: Date,
  version: number,
): MergeQueueEvent {
  return {
    orgId: queue.orgId,
    type,
    orderKey: `queue:${queue.id}`,
    order: { at, version },
    subject: { queueId: queue.id, closure: JSON.stringify(closure), ...(forecast ? { forecast: JSON.stringify(forecast) } : {}) },
  };
}

/** queue.objective_breached / .objective_recovered: an objective entered a level. */
export function objectiveEvent(
  queue: { id: string; orgId: string },
  type: ObjectiveEventType,
  objective: QueueObjective,
  status: ObjectiveStatus,
  at: Date,
  version: number,
): MergeQueueEvent {
  const detail = {
    metric: objective.metric,
    level: status.level,
    value: status.value,
    unit: OBJECTIVE_UNITS[objective.metric],
    warning: objective.warning,
    critical: objective.critical,
    windowHours: objective.windowHours,
    since: status.since.toISOString(),
  };
  return { orgId: queue.orgId, type, orderKey: `queue:${queue.id}`, order: { at, version }, subject: { queueId: queue.id, objective: JSON.stringify(detail) } };
}

/** queue.digest: the summary of a period (its dates as ISO strings). */
export function digestEvent(queue: { id: string; orgId: string }, digest: QueueDigest, at: Date, version: number): MergeQueueEvent {
  return {
    orgId: queue.orgId,
    type: DIGEST_EVENT,
    orderKey: `queue:${queue.id}`,
    order: { at, version },
    subject: { queueId: queue.id, digest: JSON.stringify(digestJson(digest)) },
  };
}

/**
 * queue.target_broken when the target branch breaks (`broken`: the tests failing on its head
 * `headSha`), queue.target_recovered when it is green again at `headSha` (`broken`: what had
 * failed). A broken branch whose failing tests change announces nothing new.
 */
export function targetHealthEvent(
  queue: { id: string; orgId: string },
  change: 'broken' | 'recovered',
  headSha: string,
  broken: TargetBreak,
  at: Date,
  version: number,
): MergeQueueEvent {
  return {
    orgId: queue.orgId,
    type: change === 'broken' ? 'queue.target_broken' : 'queue.target_recovered',
    orderKey: `queue:${queue.id}`,
    order: { at, version },
    subject: { queueId: queue.id, targetSha: headSha, testNames: JSON.stringify(broken.tests.map((t) => t.name)) },
  };
}
