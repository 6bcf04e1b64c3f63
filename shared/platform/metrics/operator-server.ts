// The operator listener: GET /metrics (process, HTTP, job and database metrics) on its own port
// (OPERATOR_PORT, bound to OPERATOR_HOST). It is separate from the API so that
// - tenants never see it: its numbers cover every organisation (request volumes, queue sizes,
//   database timings), and no API token, whatever its organisation, opens it;
// - scrapers need no tenant token, and the port can be firewalled to the monitoring network.
// Every entry point serves it (a worker-only process still has job and database metrics).
// Plain node:http: two fixed paths need no framework.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logging.js';
import type { Shutdown } from '../runtime/shutdown.js';
import { processMetricsRegistry } from './process-metrics.js';
import type { OperatorMetrics } from './operator-metrics.js';
import { closeHttpServer } from '../runtime/close-http-server.js';

export interface OperatorServer {
  server: http.Server;
  /** The bound port (OPERATOR_PORT, or the one picked for port 0). */
  port: number;
  url: string;
}

export interface OperatorServerDeps {
  metrics: Pick<OperatorMetrics, 'contentType' | 'render'>;
  logger: Logger;
  /** The listener closes with the process. */
  shutdown: Pick<Shutdown, 'add'>;
  /** OPERATOR_PORT; 0 picks a free port (tests). */
  port: number;
  /** OPERATOR_HOST. */
  host: string;
}

export async function startOperatorServer(deps: OperatorServerDeps): Promise<OperatorServer> {
  // Process metrics observe from now on (GC, event-loop delay), not from the first scrape.
  processMetricsRegistry();
  const server = http.createServer((req, res) => {
    void answer(deps, req, res);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  const { host } = deps;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  deps.shutdown.add({
    name: 'operator-http',
    order: 10,
    close: () => closeHttpServer(server),
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { server, port, url: `http://${shownHost}:${port}` };
}

async function answer(deps: Pick<OperatorServerDeps, 'metrics' | 'logger'>, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  const send = (status: number, type: string, body: string) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (path !== '/metrics' && path !== '/healthz')
    return send(404, 'text/plain; charset=utf-8', 'not found: the operator endpoint serves /metrics and /healthz\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
  }
  if (path === '/healthz') return send(200, 'text/plain; charset=utf-8', 'ok\n');
  try {
    send(200, deps.metrics.contentType, await deps.metrics.render());
  } catch (err) {
    deps.logger.error({ err }, 'rendering the operator metrics failed');
    send(500, 'text/plain; charset=utf-8', 'metrics unavailable\n');
  }
}
