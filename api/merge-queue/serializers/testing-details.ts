// Wire shape of getMergeQueueTestingDetails (spec §2.7).
import type { RepoRef } from '../../../shared/repo-ref.js';
import type { TestingDetails } from '../../../shared/merge-queue/services/testing-details-service.js';

/** The forge-style URL of a pull request (what clients of the compatible API link to). */
export function pullRequestUrl(repo: RepoRef, prNumber: number): string {
  return `https://${repo.host}/${repo.owner}/${repo.name}/pull/${prNumber}`;
}

export function serializeTestingDetails(d: TestingDetails) {
  const { run, queue } = d;
  return {
    requiredStatuses: run.requiredStatuses,
    ...(run.requiredStatusesSource ? { requiredStatusesSource: run.requiredStatusesSource } : {}),
    testBranch: run.branch,
    testBranchSha: run.sha ?? '',
    createdAt: run.createdAt.toISOString(),
    status: run.status,
    checkSuites: [] as { checkRuns: { name: string; url: string }[] }[],
    statusChecks: d.statuses.map((s) => ({ context: s.context, url: s.targetUrl ?? '', state: s.state.toUpperCase() })),
    testedPullRequests: d.tested.map((e) => ({ prNumber: e.prNumber, prUrl: pullRequestUrl(queue.repo, e.prNumber), title: e.prTitle })),
    ...(d.targets.impactedTargets ? { impactedTargets: d.targets.impactedTargets } : {}),
    ...(d.targets.impactedTargetsForTestedPrs ? { impactedTargetsForTestedPrs: d.targets.impactedTargetsForTestedPrs } : {}),
    dependentPrs: queue.mode === 'parallel' ? d.base.map((e) => e.prNumber) : [],
    ...(d.testResults
      ? {
          testResults: {
            uploads: d.testResults.uploads,
            runs: d.testResults.runs,
            failed: d.testResults.failed,
            failedTests: d.testResults.failedTests.map((t) => ({
              id: t.id,
              name: t.name,
              classname: t.classname,
              file: t.file,
              status: t.status,
              quarantined: t.quarantined,
            })),
          },
        }
      : {}),
  };
}
