// The GitHub integration's jobs: one verified webhook delivery, and the periodic passes that catch
// what webhooks lost or that publish to pull requests.
import Type from 'typebox';
import { jobSpec } from '../../platform/jobs/job-catalogue.js';

export function gitHubJobs(intervals: { providerPollSeconds: number; reconcileSeconds: number }) {
  const periodic = (everySeconds: number) => jobSpec({ payload: Type.Object({}), attempts: 1, backoffMs: 0, concurrency: 1, everySeconds });
  return {
    /** One verified GitHub webhook delivery: sync the repository's queues or record a CI result. */
    'github-webhook': jobSpec({
      // X-GitHub-Delivery: the recorded delivery (its payload is in the database, not in Redis).
      payload: Type.Object({ deliveryId: Type.String({ minLength: 1 }) }),
      // GitHub does not redeliver: a failing delivery is tried again here, then left to the poller.
      attempts: 5,
      backoffMs: 1000,
      concurrency: 4,
      // A delivery is processed once even if enqueued twice.
      jobId: (p) => `github-webhook-${p.deliveryId}`,
    }),
    /** Periodic: read back from GitHub the CI results of runs that have waited (lost deliveries); as slow as the reconciler. */
    'github-ci-results': periodic(intervals.reconcileSeconds),
    /** Periodic: publish queued pull requests' queue state (statusCheckEnabled, commentsEnabled); only what changed, so it can follow the provider poll. */
    'github-pr-feedback': periodic(intervals.providerPollSeconds),
    /**
     * Periodic: open draft pull requests for test branches, close those of ended runs
     * (createPrsForTestingBranches). Each planning pass of a GitHub queue does its queue at once;
     * this pass catches what those missed, so it can be as slow as the reconciler.
     */
    'github-test-branch-prs': periodic(intervals.reconcileSeconds),
  };
}

export type GitHubJobs = ReturnType<typeof gitHubJobs>;
