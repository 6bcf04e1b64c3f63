// A complete queue entry for tests that need one in a given state without driving the engine:
// a submitted entry (the domain's definition) with the fields a test sets.
import { randomUUID } from 'node:crypto';
import type { Entry } from '../../shared/merge-queue/domain/model.js';
import { submittedEntry } from '../../shared/merge-queue/domain/submitted-entry.js';

export function makeEntry(over: Partial<Entry> & Pick<Entry, 'queueId' | 'orgId'>): Entry {
  const entry = submittedEntry({
    id: randomUUID(),
    orgId: over.orgId,
    queueId: over.queueId,
    pr: { number: 1, title: 'A change', headSha: 'a'.repeat(40), baseBranch: 'main', author: 'someone', headBranch: null },
    priority: { value: 100, name: 'medium', usedDefaultPriorityName: 'medium' },
    noBatch: false,
    seq: 1,
    readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: false, hasImpactedTargets: false },
    requestedBy: 'a test',
    at: new Date(),
  });
  return { ...entry, history: [], ...over };
}
