// The `api` entry point: HTTP only. It needs MONGO_URL because the embedded database serves one
// process; `npm start` runs API and workers together with embedded defaults instead.
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { createApp, type AppDeps } from './app.js';
import type { Service } from '../shared/composition/service.js';
import { runEntryPoint } from '../shared/composition/entry-point.js';
import { bootstrapOrgAndToken } from '../shared/platform/accounts/bootstrap-token.js';
import { startConfiguredOperatorServer } from '../shared/composition/operator-endpoint.js';
import { closeHttpServer } from '../shared/platform/runtime/close-http-server.js';

/** The application's dependencies, taken from the service. */
export function appDepsOf(service: Service): AppDeps {
  const { config } = service;
  return {
    logger: service.logger,
    accounts: service.accounts,
    mergeQueue: service.mergeQueue,
    flakyTests: service.flakyTests.services,
    webhookEndpoints: service.events.endpoints,
    github: service.github,
    readiness: service.readiness,
    dependencyLostAfterMs: config.dependencyLostSeconds * 1000,
    trustProxy: config.trustProxy,
    authentication: { failuresPerMinute: config.authFailuresPerMinute },
    metrics: service.metrics,
    signIn: service.signIn,
    publicUrl: config.publicUrl,
    v2RateLimits: config.v2RateLimits,
  };
}

export async function startHttpServer(service: Service): Promise<http.Server> {
  const app = createApp(appDepsOf(service));
  const server = http.createServer(app.callback());
  // Slow clients must not hold sockets forever; long uploads still fit in these limits.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(service.config.port, service.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  service.shutdown.add({
    name: 'http',
    order: 10,
    close: () => closeHttpServer(server),
  });
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEntryPoint('api', async (service) => {
    // API_TOKEN registers that token, as the all-in-one process does; unset, tokens come from
    // `node dist/scripts/token.js create` (docs/operations.md).
    await bootstrapOrgAndToken(service.accounts.store, { orgSlug: service.config.orgSlug, apiToken: service.config.apiToken, generateIfNone: false });
    const server = await startHttpServer(service);
    const address = server.address();
    service.logger.info({ address }, 'api listening');
    await startConfiguredOperatorServer(service);
  });
}
