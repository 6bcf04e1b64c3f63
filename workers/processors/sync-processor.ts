// sync (periodic): notice pushes to queued pull requests, closes, merges elsewhere and target moves.
import type { ServiceContext } from '../../shared/runtime/context.js';

export function syncProcessor(ctx: ServiceContext) {
  return async (): Promise<void> => {
    await ctx.services.sync.syncAll();
  };
}
