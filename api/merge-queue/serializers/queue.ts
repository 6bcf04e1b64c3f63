// Wire shapes of queues and queue entries, in the key order the live compatible API uses.
import { stackField } from './stack-place.js';
import type { Entry, Queue } from '../../../shared/merge-queue/domain/model.js';
import type { QueueWarning } from '../../../shared/merge-queue/domain/status-watch.js';
import { isUrgentPriority } from '../../../shared/merge-queue/domain/priority.js';
import type { ClosureView, QueueWindow } from '../../../shared/merge-queue/domain/merge-window.js';

export function serializeQueueSettings(q: Queue) {
  return {
    state: q.state,
    branch: q.branch,
    concurrency: q.concurrency,
    testingTimeoutMinutes: q.testingTimeoutMinutes,
    mode: q.mode,
    canOptimisticallyMerge: q.canOptimisticallyMerge,
    pendingFailureDepth: q.pendingFailureDepth,
    batch: q.batch,
    batchingMaxWaitTimeMinutes: q.batchingMaxWaitTimeMinutes,
    batchingMinSize: q.batchingMinSize,
    createPrsForTestingBranches: q.createPrsForTestingBranches,
    commentsEnabled: q.commentsEnabled,
    commandsEnabled: q.commandsEnabled,
    statusCheckEnabled: q.statusCheckEnabled,
    extensionEnabled: q.extensionEnabled,
    bisectionConcurrency: q.bisectionConcurrency,
    requiredStatuses: q.requiredStatuses ?? [],
    allowedBotSubmitters: q.allowedBotSubmitters,
    batchingRules: q.batchingRules,
    directMergeMode: q.directMergeMode,
    optimizationMode: q.optimizationMode,
    mergeMethod: q.mergeMethod,
    testBranchConstructionMode: q.testBranchConstructionMode,
    enqueueingLabel: q.enqueueingLabel,
    labelCommandsEnabled: q.labelCommandsEnabled,
    stateLabelsEnabled: q.stateLabelsEnabled,
    notReadyTimeoutHours: q.notReadyTimeoutHours,
    flakyRetries: q.flakyRetries,
    testResultsWaitSeconds: q.testResultsWaitSeconds,
    notItsFaultRetries: q.notItsFaultRetries,
    statusWaitMinutes: q.statusWaitMinutes,
    stackFailure: q.stackFailure,
    reuseTestedTrees: q.reuseTestedTrees,
    checkInteractions: q.checkInteractions,
    schedule: q.schedule,
    objectives: q.objectives,
    digest: q.digest,
  };
}

/** A closure of the schedule on the wire (getQueue's mergeWindow, the forecast). */
export function serializeClosure(c: ClosureView) {
  return {
    kind: c.kind,
    name: c.name,
    reason: c.reason,
    targets: c.targets,
    paths: c.paths ?? [],
    startsAt: c.startsAt.toISOString(),
    endsAt: c.endsAt?.toISOString() ?? null,
  };
}

export function serializeMergeWindow(w: QueueWindow | null) {
  return w ? { source: w.source, problem: w.problem, current: w.current.map(serializeClosure), next: w.next ? serializeClosure(w.next) : null } : null;
}

/** An item of getQueue.enqueuedPullRequests / listPullRequests.pullRequests. */
export function serializeEnqueuedEntry(e: Entry) {
  return {
    id: e.id,
    state: e.state,
    stateChangedAt: e.stateChangedAt.toISOString(),
    priorityValue: e.priorityValue,
    priorityName: e.priorityName,
    usedDefaultPriorityName: e.usedDefaultPriorityName,
    skipTheLine: isUrgentPriority(e.priorityValue),
    noBatch: e.noBatch,
    prNumber: e.prNumber,
    prTitle: e.prTitle,
    prSha: e.prSha,
    prBaseBranch: e.prBaseBranch,
    prAuthor: e.prAuthor,
    ...stackField(e),
  };
}

export function serializeQueue(q: Queue, entries: Entry[], warnings: readonly QueueWarning[]) {
  return {
    ...serializeQueueSettings(q),
    enqueuedPullRequests: entries.map(serializeEnqueuedEntry),
    warnings: warnings.map((w) => ({ code: w.code, message: w.message, contexts: w.contexts, testRunIds: w.testRunIds, since: w.since.toISOString() })),
    mergeWindow: serializeMergeWindow(q.mergeWindow),
    objectiveStatus: q.objectiveStatus.map((s) => ({
      metric: s.metric,
      level: s.level,
      since: s.since.toISOString(),
      value: s.value,
      pending: s.pending ? { level: s.pending.level, since: s.pending.since.toISOString() } : null,
    })),
  };
}
