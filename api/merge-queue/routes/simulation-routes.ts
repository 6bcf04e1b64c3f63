// POST /v1/simulateQueue: what-if on a queue's own history (and settings advice for a goal).
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import { parseSimulateQueue, SIMULATION_LIMITS } from '../schemas/simulation-schemas.js';
import type { QueueService } from '../../../shared/merge-queue/services/queue-service.js';
import type { QueueSimulationService } from '../../../shared/merge-queue/simulation/queue-simulation-service.js';

export function registerSimulationRoutes(routes: OperationRoutes, queues: QueueService, simulation: QueueSimulationService): void {
  routes.handle('simulateQueue', async (ctx) => {
    const body = parseSimulateQueue(ctx.request.body);
    const queue = await queues.get(actorOf(ctx.state).orgId, body.repo, body.targetBranch);
    const result = await simulation.simulate(queue, {
      days: body.days ?? SIMULATION_LIMITS.defaultDays,
      maxPullRequests: body.maxPullRequests ?? SIMULATION_LIMITS.defaultMaxPullRequests,
      candidates: body.candidates ?? [],
      goal: body.goal ?? null,
    });
    ctx.body = result;
  });
}
