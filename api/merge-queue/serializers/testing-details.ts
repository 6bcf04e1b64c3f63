// Wire shape of getMergeQueueTestingDetails (spec §2.7).
import type { RepoRef } from '../../../shared/platform/repo-ref.js';
import type { CheckRunReport, TestingDetails } from '../../../shared/merge-queue/services/testing-details-service.js';

/** The forge-style URL of a pull request (what clients of the compatible API link to). */
export function pullRequestUrl(repo: RepoRef, prNumber: number): string {
  return `https://${repo.host}/${repo.owner}/${repo.name}/pull/${prNumber}`;
}

const CHECK_RUN_STATUSES = new Set(['queued', 'in_progress', 'completed']);
const CHECK_RUN_CONCLUSIONS = new Set(['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out']);

/**
 * The contract's upper-case values: GitHub's other waiting statuses (waiting, requested, pending)
 * are QUEUED; a conclusion it does not list (startup_failure) is a FAILURE; a conclusion only
 * once COMPLETED.
 */
export function serializeCheckRun(run: CheckRunReport) {
  const status = CHECK_RUN_STATUSES.has(run.status) ? run.status : 'queued';
  const conclusion = status === 'completed' && run.conclusion !== null ? (CHECK_RUN_CONCLUSIONS.has(run.conclusion) ? run.conclusion : 'failure') : null;
  return { name: run.name, url: run.url, status: status.toUpperCase(), ...(conclusion ? { conclusion: conclusion.toUpperCase() } : {}) };
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
    checkSuites: d.checkSuites.map((suite) => ({ checkRuns: suite.checkRuns.map(serializeCheckRun) })),
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
