// Wire shapes of the dashboard's read endpoints.
import type { QueueSummary, TestRunView } from '../../../shared/merge-queue/services/queue-read-service.js';

export function serializeQueueSummary(s: QueueSummary) {
  const q = s.queue;
  return {
    repo: q.repo,
    targetBranch: q.branch,
    state: q.state,
    mode: q.mode,
    concurrency: q.concurrency,
    counts: s.counts,
    mergedLast24h: s.mergedLast24h,
  };
}

export function serializeTestRunView(v: TestRunView) {
  const r = v.run;
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    testBranch: r.branch,
    testBranchSha: r.sha ?? '',
    createdAt: r.createdAt.toISOString(),
    concludedAt: r.concludedAt ? r.concludedAt.toISOString() : null,
    conclusionReason: r.conclusionReason,
    testedPrs: v.testedPrs,
    basePrs: v.basePrs,
    bisectionOf: r.bisectionOf ?? null,
  };
}
