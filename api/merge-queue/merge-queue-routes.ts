// The merge queue's operations, each given only the services it uses.
import type { OperationRoutes } from '../routing/operation-router.js';
import type { MergeQueueServices } from '../../shared/merge-queue/merge-queue-module.js';
import type { MergeQueueStore } from '../../shared/merge-queue/store/store.js';
import { QueueAnswerCache } from './routes/queue-answer-cache.js';
import { registerQueueRoutes } from './routes/queue-routes.js';
import { registerPullRequestRoutes } from './routes/pull-request-routes.js';
import { registerTestRunRoutes } from './routes/test-run-routes.js';
import { registerCostReportRoutes } from './routes/cost-report-routes.js';
import { registerDigestRoutes } from './routes/digest-routes.js';
import { registerMetricsRoutes } from './routes/metrics-routes.js';
import { registerSimulationRoutes } from './routes/simulation-routes.js';
import { registerDashboardReadRoutes } from './routes/dashboard-read-routes.js';

export function registerMergeQueueRoutes(routes: OperationRoutes, services: MergeQueueServices, store: Pick<MergeQueueStore, 'queueRevisions'>): void {
  const { queues } = services;
  registerQueueRoutes(routes, {
    queues,
    statusWatch: services.statusWatch,
    answers: new QueueAnswerCache(store.queueRevisions),
    mergeWindows: services.mergeWindows,
  });
  registerPullRequestRoutes(routes, services.pullRequests, {
    queues,
    timeToMerge: services.timeToMerge,
    verdicts: services.verdicts,
    mergeWindows: services.mergeWindows,
  });
  registerTestRunRoutes(routes, services.commitStatuses, services.testingDetails, services.commitVerification);
  registerCostReportRoutes(routes, services.costReport);
  registerDigestRoutes(routes, services.digests);
  registerMetricsRoutes(routes, services.metrics);
  registerSimulationRoutes(routes, queues, services.simulation);
  registerDashboardReadRoutes(routes, services.queueReads);
}
