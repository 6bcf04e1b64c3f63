// GET /v1/getMergeQueueMetrics: the merge-queue series of the token's organisation in the
// Prometheus text format (wire-contract §2.12). The operator metrics are not here: they are
// served on the separate operator listener (shared/metrics/operator-server.ts).
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import { parseMetricsQuery } from '../schemas/metrics-schemas.js';
import type { MergeQueueMetricsService } from '../../../shared/merge-queue/services/metrics-service.js';
import { MERGE_QUEUE_METRICS_CONTENT_TYPE, renderMergeQueueMetrics } from '../../../shared/merge-queue/metrics/merge-queue-exposition.js';

export function registerMetricsRoutes(routes: OperationRoutes, metrics: MergeQueueMetricsService): void {
  routes.handle('getMergeQueueMetrics', async (ctx) => {
    const repo = parseMetricsQuery(ctx.query);
    const series = await metrics.collect(actorOf(ctx.state).orgId, repo);
    ctx.body = await renderMergeQueueMetrics(series);
    ctx.set('Content-Type', MERGE_QUEUE_METRICS_CONTENT_TYPE);
    // Values change with every transition; a cache in between would serve stale gauges.
    ctx.set('Cache-Control', 'no-store');
  });
}
