// The operator listener: GET /metrics (process, HTTP, job and database metrics) on its own port
// (OPERATOR_PORT, bound to OPERATOR_HOST). It is separate from the API so that
// - tenants never see it: its numbers cover every organisation (request volumes, queue sizes,
//   database timings), and no API token, whatever its organisation, opens it;
// - scrapers need no tenant token, and the port can be firewalled to the monitoring network.
// Every entry point serves it (a worker-only process still has job and database metrics).
// Plain node:http: two fixed paths need no framework, and it depends on shared code only.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceContext } from '../runtime/context.js';
import { processMetricsRegistry } from './process-metrics.js';
import { closeHttpServer } from '../runtime/close-http-server.js';

export interface OperatorServer {
  server: http.Server;
  /** The bound port (OPERATOR_PORT, or the one picked for port 0). */
  port: number;
  url: string;
}

export interface OperatorServerOptions {
  /** Defaults to OPERATOR_PORT; 0 picks a free port (tests). */
  port?: number;
  host?: string;
}

export async function startOperatorServer(ctx: ServiceContext, opts: OperatorServerOptions = {}): Promise<OperatorServer> {
  // Process metrics observe from now on (GC, event-loop delay), not from the first scrape.
  processMetricsRegistry();
  const server = http.createServer((req, res) => {
    void answer(ctx, req, res);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  const host = opts.host ?? ctx.config.operatorHost;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? ctx.config.operatorPort, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  ctx.shutdown.add({
    name: 'operator-http',
    order: 10,
    close: () => closeHttpServer(server),
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { server, port, url: `http://${shownHost}:${port}` };
}

/** Starts the operator listener unless OPERATOR_PORT is 0 (disabled); logs where it listens. */
export async function startConfiguredOperatorServer(ctx: ServiceContext): Promise<OperatorServer | null> {
  if (ctx.config.operatorPort === 0) {
    ctx.logger.info('operator endpoint disabled (OPERATOR_PORT=0)');
    return null;
  }
  const op = await startOperatorServer(ctx);
  ctx.logger.info({ url: `${op.url}/metrics` }, 'operator metrics listening');
  return op;
}

async function answer(ctx: ServiceContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  const send = (status: number, type: string, body: string) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (path !== '/metrics' && path !== '/healthz') return send(404, 'text/plain; charset=utf-8', 'not found: the operator endpoint serves /metrics and /healthz\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
  }
  if (path === '/healthz') return send(200, 'text/plain; charset=utf-8', 'ok\n');
  try {
    send(200, ctx.metrics.contentType, await ctx.metrics.render());
  } catch (err) {
    ctx.logger.error({ err }, 'rendering the operator metrics failed');
    send(500, 'text/plain; charset=utf-8', 'metrics unavailable\n');
  }
}
