// The v2 API, mounted beside v1 over the same engine: every operation of the hosted product's v2
// contract under /v2 (docs/api-v2.md), and its description at GET /v2/openapi.json.
import type { Middleware } from 'koa';
import { contractDocument, V2_DOCUMENT_PATH } from './contract.js';
import { createV2Router, type V2RouterDeps } from './v2-router.js';
import type { V2Deps } from './handlers/v2-deps.js';
import { mergeQueueHandlers } from './handlers/merge-queue-handlers.js';
import { queueViewHandlers } from './handlers/queue-view-handlers.js';
import { pullRequestHandlers } from './handlers/pull-request-handlers.js';
import { repositoryHandlers } from './handlers/repository-handlers.js';

/** The contract as this service serves it: relative to this server, with where its gaps are written down. */
const servedDocument = {
  ...contractDocument,
  servers: [{ url: '/', description: 'This openmq service' }],
  'x-openmq-gaps': 'docs/api-v2.md lists where this service answers less than the contract describes, and why',
};

export function v2Routes(deps: V2Deps, router: V2RouterDeps): Middleware {
  const describe: Middleware = async (ctx) => {
    ctx.body = servedDocument;
  };
  return createV2Router(
    router,
    { ...mergeQueueHandlers(deps), ...queueViewHandlers(deps), ...pullRequestHandlers(deps), ...repositoryHandlers(deps) },
    { [V2_DOCUMENT_PATH]: describe },
  );
}
