// Pull requests, their queue entries and their queue-entry history as the v2 contract has them.
// A pull request read from the forge carries its state there; one listed from a queue is built
// from its entry alone, and its forge state (optional in the contract) is then left out.
import type { Entry, HistoryEntry } from '../../../shared/merge-queue/domain/model.js';
import { ACTIVE_ENTRY_STATES } from '../../../shared/merge-queue/domain/model.js';
import type { PullRequestResource } from '../../../shared/merge-queue/services/resource-service.js';
import type { components } from '../../../openapi/v2/types.js';
import { ENTRY_STATE_V2, MERGEABILITY_V2 } from './wire-names.js';

type S = components['schemas'];

const lastChangeOf = (e: Entry): Date => e.history.at(-1)?.at ?? e.stateChangedAt;

export function serializeQueueEntry(e: Entry): S['QueueEntry'] {
  return {
    id: e.id,
    mergeQueueId: e.queueId,
    state: ENTRY_STATE_V2[e.state],
    stateChangedAt: e.stateChangedAt.toISOString(),
    priorityValue: e.priorityValue,
    priorityName: e.priorityName,
    usedDefaultPriorityName: e.usedDefaultPriorityName,
    skipsTheLine: e.priorityValue === 0,
    allowBatching: !e.noBatch,
    direct: e.forceEnqueued,
    ...(e.verifiedByTestRun ? { verifiedByVerificationRunId: e.verifiedByTestRun } : {}),
    readiness: {
      requiresImpactedTargets: e.readiness.requiresImpactedTargets,
      hasImpactedTargets: e.readiness.hasImpactedTargets,
      doesBaseBranchMatch: e.readiness.doesBaseBranchMatch,
      mergeability: MERGEABILITY_V2[e.readiness.gitHubMergeability],
    },
    createdAt: e.submittedAt.toISOString(),
    updatedAt: lastChangeOf(e).toISOString(),
  };
}

const isActive = (e: Entry) => ACTIVE_ENTRY_STATES.includes(e.state);

/** A pull request of a queue listing, from its entry (the latest of the pull request there). */
export function serializeEntryPullRequest(e: Entry, ids: { pullRequestId: string; repositoryId: string }): S['PullRequest'] {
  return {
    id: ids.pullRequestId,
    repositoryId: ids.repositoryId,
    number: e.prNumber,
    title: e.prTitle,
    branch: e.prHeadBranch ?? '',
    sha: e.prSha,
    baseBranch: e.prBaseBranch,
    author: e.prAuthor,
    isCurrentlySubmittedToQueue: isActive(e),
    queueEntry: serializeQueueEntry(e),
    createdAt: e.submittedAt.toISOString(),
  };
}

/** A pull request as the forge sees it now, with its latest entry in the organisation's queues. */
export function serializePullRequest(pr: PullRequestResource): S['PullRequest'] {
  const latest = pr.entries[0];
  const { info } = pr;
  return {
    id: pr.id,
    repositoryId: pr.repositoryId,
    number: pr.number,
    title: info.title,
    branch: info.headBranch ?? '',
    sha: info.headSha,
    baseBranch: info.baseBranch ?? latest?.prBaseBranch ?? '',
    author: info.author,
    url: info.url,
    state: info.merged ? 'merged' : info.state,
    isCurrentlySubmittedToQueue: latest !== undefined && isActive(latest),
    ...(latest ? { queueEntry: serializeQueueEntry(latest) } : {}),
    createdAt: pr.createdAt.toISOString(),
  };
}

/** One change of state in an entry's history; notes recorded without a change of state are not transitions. */
function transitionOf(pullRequestId: string, h: HistoryEntry): S['QueueEntryStateTransition'] | null {
  if (h.from === h.to) return null;
  return {
    pullRequestId,
    state: ENTRY_STATE_V2[h.to],
    changedAt: h.at.toISOString(),
    reason: h.reason.toUpperCase(),
    ...(h.testRunId ? { verificationRunId: h.testRunId } : {}),
  };
}

/** Every transition of a pull request's entries, oldest first. */
export function transitionsOf(pullRequestId: string, entries: readonly Entry[]): S['QueueEntryStateTransition'][] {
  return entries
    .flatMap((e) => e.history)
    .sort((a, b) => a.at.getTime() - b.at.getTime())
    .map((h) => transitionOf(pullRequestId, h))
    .filter((t): t is S['QueueEntryStateTransition'] => t !== null);
}
