// Liveness, readiness and the compatible API's status: no token, as the table says.
import { serviceStatus } from '../../shared/platform/runtime/service-status.js';
import type { DependencyHealth } from '../../shared/platform/runtime/dependency-health.js';
import type { OperationRoutes } from '../routing/operation-router.js';

export function registerHealthRoutes(routes: OperationRoutes, dependencies: DependencyHealth): void {
  routes.handle('health', (ctx) => {
    // Liveness never waits on a dependency: it answers from the checks so far and starts a round.
    void dependencies.check();
    const lost = dependencies.lost();
    if (lost.length === 0) {
      ctx.body = { status: 'ok' };
      return;
    }
    ctx.status = 503;
    ctx.body = { status: 'dependency_lost', lost: Object.fromEntries(lost.map((d) => [d.name, d.detail])) };
  });
  routes.handle('readiness', async (ctx) => {
    const results = await dependencies.check();
    const ready = results.every((r) => r.ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results.map((r) => [r.name, r.detail])) };
  });
  // The compatible API's status endpoint: no token, like the hosted one.
  routes.handle('getStatus', async (ctx) => {
    ctx.body = serviceStatus(await dependencies.check());
  });
}
