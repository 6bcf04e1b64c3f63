// The flaky-tests operations, each given only the services it uses.
import type { OperationRoutes } from '../routing/operation-router.js';
import type { FlakyServices } from '../../shared/flaky-tests/services/flaky-services.js';
import { registerFlakyUploadRoutes } from './routes/upload-routes.js';
import { registerFlakyRoutes } from './routes/test-routes.js';
import { registerFlakyCliRoutes } from './routes/cli-routes.js';
import { registerFlakyTestHistoryRoutes } from './routes/test-history-routes.js';

export function registerFlakyTestRoutes(routes: OperationRoutes, services: FlakyServices): void {
  registerFlakyUploadRoutes(routes, services);
  registerFlakyRoutes(routes, services);
  registerFlakyCliRoutes(routes, services);
  registerFlakyTestHistoryRoutes(routes, services.history);
}
