// Test runs as the v2 contract's verification runs and testing results.
import type { Entry, TestRun, TestRunStatus } from '../../../shared/merge-queue/domain/model.js';
import type { CommitStatus } from '../../../shared/merge-queue/store/commit-status-repository.js';
import type { components } from '../../../openapi/v2/types.js';
import { camel, RUN_STATUS_V2 } from './wire-names.js';

type S = components['schemas'];

/** What a run's answer needs besides the run: its entries (tested and below it), the statuses CI reported on its commit, and the pull requests' ids. */
export interface RunView {
  run: TestRun;
  tested: Entry[];
  base: Entry[];
  statuses: CommitStatus[];
  pullRequestIdOf: (prNumber: number) => string;
}

const CONCLUDED: Readonly<Record<string, { conclusion: S['CheckConclusion']; providerConclusion: S['ProviderCheckConclusion'] }>> = {
  success: { conclusion: 'success', providerConclusion: 'SUCCESS' },
  failure: { conclusion: 'failure', providerConclusion: 'FAILURE' },
  error: { conclusion: 'failure', providerConclusion: 'ERROR' },
};

/**
 * The latest report of each status context that has concluded. A pending status is left out:
 * the contract's check always carries a conclusion (docs/api-v2.md#gaps).
 */
function checksOf(statuses: readonly CommitStatus[]): S['Check'][] {
  const latest = new Map<string, CommitStatus>();
  for (const s of [...statuses].sort((a, b) => a.seq - b.seq)) latest.set(s.context, s);
  return [...latest.values()].flatMap((s) => {
    const concluded = CONCLUDED[s.state];
    if (!concluded) return [];
    return [
      {
        id: s.id,
        name: s.context,
        kind: 'statusCheck' as const,
        status: 'completed' as const,
        conclusion: concluded.conclusion,
        providerStatus: 'COMPLETED' as const,
        providerConclusion: concluded.providerConclusion,
        url: s.targetUrl,
        provider: 'github' as const,
      },
    ];
  });
}

const pullRequestRef = (e: Entry, idOf: (n: number) => string) => ({ id: idOf(e.prNumber), number: e.prNumber, sha: e.prSha, title: e.prTitle });

export function serializeVerificationRun(v: RunView): S['VerificationRun'] {
  const { run } = v;
  return {
    id: run.id,
    isBisection: run.kind === 'bisection',
    testBranch: run.branch,
    // Empty while the test branch is being built (docs/api-v2.md#gaps).
    testBranchSha: run.sha ?? '',
    createdAt: run.createdAt.toISOString(),
    updatedAt: (run.concludedAt ?? run.createdAt).toISOString(),
    status: RUN_STATUS_V2[run.status],
    ...(run.requiredStatusesSource ? { requiredStatusesSource: camel(run.requiredStatusesSource) as S['RequiredStatusesSource'] } : {}),
    requiredStatuses: run.requiredStatuses,
    checks: checksOf(v.statuses),
    testedPullRequests: v.tested.map((e) => pullRequestRef(e, v.pullRequestIdOf)),
    dependentPullRequests: v.base.map((e) => pullRequestRef(e, v.pullRequestIdOf)),
  };
}

const ENDED: readonly string[] = ['merged', 'failed', 'cancelled'];

const OUTCOME: Readonly<Record<Exclude<TestRunStatus, 'in_progress'>, S['TestingOutcome']>> = {
  succeeded: 'passed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** One pull request's stretch of testing in a concluded run (`startedBisection`: the run's failure started a bisection). */
export function serializeTestingResult(run: TestRun, entry: Entry | undefined, prNumber: number, startedBisection: boolean): S['TestingResult'] | null {
  if (run.status === 'in_progress' || !run.concludedAt) return null;
  // The entry's conclusion, when this run's result is what ended it.
  const ended = entry && entry.history.at(-1)?.testRunId === run.id && ENDED.includes(entry.state) ? (entry.state as S['QueueEntryConclusion']) : undefined;
  return {
    pullRequestNumber: prNumber,
    endedAt: run.concludedAt.toISOString(),
    testingDurationMs: Math.round((run.concludedAt.getTime() - run.createdAt.getTime()) / 1000) * 1000,
    outcome: OUTCOME[run.status],
    ...(ended ? { entryConclusion: ended } : {}),
    isBisection: run.kind === 'bisection',
    startedBisection,
    verificationRunId: run.id,
  };
}
