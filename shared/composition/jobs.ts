// The service's one job catalogue: every module's jobs, joined.
import { joinCatalogues } from '../platform/jobs/job-catalogue.js';
import { mergeQueueJobs } from '../merge-queue/jobs/merge-queue-jobs.js';
import { flakyTestJobs } from '../flaky-tests/jobs/flaky-test-jobs.js';
import { gitHubJobs } from '../github/jobs/github-jobs.js';
import { eventDeliveryJobs } from '../platform/events/jobs/event-delivery-jobs.js';

/** The periods of the periodic jobs, in seconds (from the configuration). */
export interface JobIntervals {
  providerPollSeconds: number;
  reconcileSeconds: number;
  flakyRefreshSeconds: number;
}

export function serviceJobs(config: JobIntervals) {
  return joinCatalogues(mergeQueueJobs(config), flakyTestJobs(config), gitHubJobs(config), eventDeliveryJobs(config));
}

export type ServiceJobs = ReturnType<typeof serviceJobs>;
