// A pull request as it enters a queue: the one definition of a new entry's fields (submission
// builds it; tests that need an entry start from it).
import type { Entry, EntryStack, Readiness } from './model.js';

export interface Submission {
  id: string;
  orgId: string;
  queueId: string;
  pr: { number: number; title: string; headSha: string; baseBranch: string; author: string; headBranch: string | null; labels?: readonly string[] };
  priority: { value: number; name: string; usedDefaultPriorityName: string };
  noBatch: boolean;
  /** Admitted without waiting for the forge's mergeability (v2 `direct`); default false. */
  direct?: boolean;
  /** Its place in a stack queued as one unit; null for a lone pull request. */
  stack?: EntryStack | null;
  /** Admission order in the queue (QueueRepository.allocateSeq). */
  seq: number;
  readiness: Readiness;
  /** Who submitted it, for the first timeline entry. */
  requestedBy: string;
  at: Date;
}

export function submittedEntry(s: Submission): Entry {
  return {
    id: s.id,
    orgId: s.orgId,
    queueId: s.queueId,
    prNumber: s.pr.number,
    prTitle: s.pr.title,
    prSha: s.pr.headSha,
    prBaseBranch: s.pr.baseBranch,
    prAuthor: s.pr.author,
    prHeadBranch: s.pr.headBranch,
    prLabels: [...(s.pr.labels ?? [])],
    priorityValue: s.priority.value,
    priorityName: s.priority.name,
    usedDefaultPriorityName: s.priority.usedDefaultPriorityName,
    noBatch: s.noBatch,
    forceEnqueued: s.direct ?? false,
    state: 'not_ready',
    stateChangedAt: s.at,
    submittedAt: s.at,
    seq: s.seq,
    readiness: s.readiness,
    readinessBasis: null,
    currentRunId: null,
    verifiedByTestRun: null,
    mergedSha: null,
    stack: s.stack ?? null,
    restartCount: 0,
    lastReason: 'api_requested',
    history: [{ at: s.at, from: null, to: 'not_ready', reason: 'api_requested', detail: `submitted at ${s.pr.headSha.slice(0, 12)} by ${s.requestedBy}` }],
    version: 1,
  };
}
