// A complete queue entry for tests that need one in a given state without driving the engine.
import { randomUUID } from 'node:crypto';
import type { Entry } from '../../shared/merge-queue/domain/model.js';

export function makeEntry(over: Partial<Entry> & Pick<Entry, 'queueId' | 'orgId'>): Entry {
  const now = new Date();
  return {
    id: randomUUID(),
    prNumber: 1,
    prTitle: 'A change',
    prSha: 'a'.repeat(40),
    prBaseBranch: 'main',
    prAuthor: 'someone',
    prHeadBranch: null,
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    noBatch: false,
    forceEnqueued: false,
    state: 'not_ready',
    stateChangedAt: now,
    submittedAt: now,
    seq: 1,
    readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: false, hasImpactedTargets: false },
    readinessBasis: null,
    currentRunId: null,
    verifiedByTestRun: null,
    mergedSha: null,
    restartCount: 0,
    lastReason: 'api_requested',
    history: [],
    version: 1,
    ...over,
  };
}
