// The hosted CLI's internal endpoints, so its unmodified uploader can point at this service
// (TRUNK_PUBLIC_API_ADDRESS): createBundleUpload and getQuarantineConfig (notes §1.5, §2.1).
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import type { FlakyServices } from '../../../shared/flaky-tests/services/flaky-services.js';
import { parseCreateBundleUpload, parseGetQuarantineConfig } from '../schemas/cli-schemas.js';
import { baseUrlOf } from './test-routes.js';

export function registerFlakyCliRoutes(routes: OperationRoutes, services: Pick<FlakyServices, 'settings' | 'bundles' | 'quarantine'>): void {
  const publicUrl = services.settings.publicUrl;
  routes.handle('createBundleUpload', async (ctx) => {
    const b = parseCreateBundleUpload(ctx.request.body);
    const created = await services.bundles.create(
      actorOf(ctx.state).orgId,
      { orgUrlSlug: b.orgUrlSlug, repo: b.repo, clientVersion: b.clientVersion ?? null },
      baseUrlOf(ctx, publicUrl),
    );
    ctx.body = { id: created.id, idV2: created.id, url: created.url, key: created.key };
  });

  routes.handle('getQuarantineConfig', async (ctx) => {
    const b = parseGetQuarantineConfig(ctx.request.body);
    const config = await services.quarantine.config(actorOf(ctx.state).orgId, { orgUrlSlug: b.orgUrlSlug, repo: b.repo });
    ctx.body = { isDisabled: config.isDisabled, testIds: config.testIds };
  });
}
