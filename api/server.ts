// The `api` entry point: HTTP only. It needs MONGO_URL because the embedded database serves one
// process; `npm start` runs API and workers together with embedded defaults instead.
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { createApp, type AppDeps } from './app.js';
import type { ServiceContext } from '../shared/runtime/context.js';
import { runEntryPoint } from '../shared/runtime/entry-point.js';
import { startConfiguredOperatorServer } from '../shared/metrics/operator-server.js';
import { closeHttpServer } from '../shared/runtime/close-http-server.js';

/** The application's dependencies, taken from a service context. */
export function appDepsOf(ctx: ServiceContext): AppDeps {
  return {
    logger: ctx.logger,
    store: ctx.store,
    services: ctx.services,
    githubWebhooks: ctx.github?.webhooks ?? null,
    readiness: ctx.readiness,
    dependencyLostAfterMs: ctx.config.dependencyLostSeconds * 1000,
    trustProxy: ctx.config.trustProxy,
    authentication: { failuresPerMinute: ctx.config.authFailuresPerMinute },
    metrics: ctx.metrics,
  };
}

export async function startHttpServer(ctx: ServiceContext): Promise<http.Server> {
  const app = createApp(appDepsOf(ctx));
  const server = http.createServer(app.callback());
  // Slow clients must not hold sockets forever; long uploads still fit in these limits.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ctx.config.port, ctx.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  ctx.shutdown.add({
    name: 'http',
    order: 10,
    close: () => closeHttpServer(server),
  });
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEntryPoint('api', async (ctx) => {
    const server = await startHttpServer(ctx);
    const address = server.address();
    ctx.logger.info({ address }, 'api listening');
    await startConfiguredOperatorServer(ctx);
  });
}
