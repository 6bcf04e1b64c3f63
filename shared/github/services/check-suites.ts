// getMergeQueueTestingDetails' check suites on GitHub: the check runs recorded on a commit (from
// webhooks and read-back), grouped by suite in the order they were first seen; none for
// repositories GitHub does not serve.
import type { CheckRunReport, CheckSuiteSource } from '../../merge-queue/services/testing-details-service.js';
import { repoKey } from '../../platform/repo-ref.js';
import type { GitHubApi } from '../../providers/github/github-api.js';
import type { CheckRunRepository } from '../store/check-run-repository.js';

export function gitHubCheckSuites(deps: { checkRuns: Pick<CheckRunRepository, 'forCommit'>; api: Pick<GitHubApi, 'serves'> }): CheckSuiteSource {
  return async (repo, sha) => {
    if (!deps.api.serves(repo)) return [];
    const suites = new Map<string, { checkRuns: CheckRunReport[] }>();
    for (const run of await deps.checkRuns.forCommit(repoKey(repo), sha.toLowerCase())) {
      const key = run.suiteId === null ? `run-${run.checkRunId}` : `suite-${run.suiteId}`;
      const suite = suites.get(key) ?? { checkRuns: [] };
      suite.checkRuns.push({ name: run.name, url: run.url, status: run.status, conclusion: run.conclusion });
      suites.set(key, suite);
    }
    return [...suites.values()];
  };
}
