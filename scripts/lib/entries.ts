// A complete queue entry for tests that need one in a given state without driving the engine:
// a submitted entry (the domain's definition) with the fields a test sets.
import { randomUUID } from 'node:crypto';
import type { Entry, EntryState, HistoryEntry, Reason } from '../../shared/merge-queue/domain/model.js';
import { submittedEntry } from '../../shared/merge-queue/domain/submitted-entry.js';

/** A step of a scripted life: when (epoch ms), the state entered, why, and the run it concerns. */
export type LifeStep = [at: number, to: EntryState, reason: Reason, testRunId?: string];

/** The history of scripted steps, each from the state before; steps later than `until` are left out (the entry stays in the last one). */
export function historyOf(steps: readonly LifeStep[], until = Infinity): HistoryEntry[] {
  const history: HistoryEntry[] = [];
  let from: EntryState | null = null;
  for (const [at, to, reason, testRunId] of steps) {
    if (at > until) break;
    history.push({ at: new Date(at), from, to, reason, ...(testRunId ? { testRunId } : {}) });
    from = to;
  }
  return history;
}

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
