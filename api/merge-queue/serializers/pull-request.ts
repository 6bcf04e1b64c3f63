// Wire shape of getSubmittedPullRequest (spec §2.6 plus the fields the live API returns).
import type { Entry } from '../../../shared/merge-queue/domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../../../shared/merge-queue/domain/model.js';

export function serializeSubmittedPullRequest(e: Entry, opts: { includeTimeline?: boolean } = {}) {
  const body = {
    id: e.id,
    state: e.state,
    readiness: { ...e.readiness },
    stateChangedAt: e.stateChangedAt.toISOString(),
    priorityValue: e.priorityValue,
    priorityName: e.priorityName,
    usedDefaultPriorityName: e.usedDefaultPriorityName,
    skipTheLine: e.priorityValue === 0,
    noBatch: e.noBatch,
    forceEnqueued: e.forceEnqueued,
    isCurrentlySubmittedToQueue: !TERMINAL_ENTRY_STATES.includes(e.state),
    verifiedByTestRun: e.verifiedByTestRun,
    restartCount: e.restartCount,
    prNumber: e.prNumber,
    prTitle: e.prTitle,
    prSha: e.prSha,
    prBaseBranch: e.prBaseBranch,
    prAuthor: e.prAuthor,
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
