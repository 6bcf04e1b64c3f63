// The service's one job catalogue: every module's jobs, joined.
import type { Config } from './config.js';
import { joinCatalogues } from '../platform/jobs/job-catalogue.js';
import { mergeQueueJobs } from '../merge-queue/jobs/merge-queue-jobs.js';
import { flakyTestJobs } from '../flaky-tests/jobs/flaky-test-jobs.js';
import { gitHubJobs } from '../github/jobs/github-jobs.js';
import { eventDeliveryJobs } from '../platform/events/jobs/event-delivery-jobs.js';

export function serviceJobs(config: Pick<Config, 'providerPollSeconds' | 'reconcileSeconds' | 'flakyRefreshSeconds'>) {
  return joinCatalogues(mergeQueueJobs(config), flakyTestJobs(config), gitHubJobs(config), eventDeliveryJobs(config));
}

export type ServiceJobs = ReturnType<typeof serviceJobs>;
