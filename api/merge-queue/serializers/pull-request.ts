// Wire shape of getSubmittedPullRequest (spec §2.6 plus the fields the live API returns).
import type { Entry } from '../../../shared/merge-queue/domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../../../shared/merge-queue/domain/model.js';
import type { QueueStanding } from '../../../shared/merge-queue/services/time-to-merge-service.js';
import { isUrgentPriority } from '../../../shared/merge-queue/domain/priority.js';
import { stackField } from './stack-place.js';
import type { WindowHold } from '../../../shared/merge-queue/domain/merge-schedule.js';
import type { FailureVerdict } from '../../../shared/merge-queue/services/verdict-service.js';

/** With includeEstimatedTimeToMerge: the position, and the estimate when there is one. */
function standingFields(standing: QueueStanding | null | undefined) {
  if (!standing) return {};
  const t = standing.timeToMerge;
  return {
    position: standing.position,
    ...(t ? { estimatedTimeToMerge: t.estimate, estimatedTimeToMergeRange: { low: t.low, high: t.high } } : {}),
  };
}

/** While a pending pull request waits for a merge window: until when, and why. */
function windowWaitField(hold: WindowHold | null | undefined) {
  if (!hold) return {};
  return { waitingForMergeWindow: { until: hold.until === null ? null : new Date(hold.until).toISOString(), detail: hold.detail } };
}

export function serializeSubmittedPullRequest(
  e: Entry,
  opts: { includeTimeline?: boolean; standing?: QueueStanding | null; verdict?: FailureVerdict | null; windowHold?: WindowHold | null } = {},
) {
  const body = {
    id: e.id,
    state: e.state,
    readiness: { ...e.readiness },
    stateChangedAt: e.stateChangedAt.toISOString(),
    priorityValue: e.priorityValue,
    priorityName: e.priorityName,
    usedDefaultPriorityName: e.usedDefaultPriorityName,
    skipTheLine: isUrgentPriority(e.priorityValue),
    noBatch: e.noBatch,
    forceEnqueued: e.forceEnqueued,
    isCurrentlySubmittedToQueue: !TERMINAL_ENTRY_STATES.includes(e.state),
    verifiedByTestRun: e.verifiedByTestRun,
    restartCount: e.restartCount,
    ...windowWaitField(opts.windowHold),
    prNumber: e.prNumber,
    prTitle: e.prTitle,
    prSha: e.prSha,
    prBaseBranch: e.prBaseBranch,
    prAuthor: e.prAuthor,
    ...stackField(e),
    ...standingFields(opts.standing),
    ...(opts.verdict ? { verdict: opts.verdict } : {}),
  };
  if (!opts.includeTimeline) return body;
  // Newest first, like the compatible API's timeline.
  const timeline = [...e.history].reverse().map((h) => ({
    timestamp: h.at.toISOString(),
    state: h.to,
    previousState: h.from,
    reason: h.reason,
    ...(h.detail !== undefined ? { detail: h.detail } : {}),
    ...(h.testRunId !== undefined ? { testRunId: h.testRunId } : {}),
  }));
  return { ...body, timeline };
}
