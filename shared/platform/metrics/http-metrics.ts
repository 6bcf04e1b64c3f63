// Koa middleware counting and timing every request by method, route template and status. The
// route is the template the router matched (`/v1/getQueue`), never the raw path: a label per
// distinct URL would let any client grow the series without bound.
import type { Middleware } from 'koa';
import type { Counter, Histogram } from 'prom-client';

export interface HttpInstruments {
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
}

/** Route label of requests no route matched (unknown paths, wrong methods). */
export const UNMATCHED_ROUTE = 'unmatched';

export function httpMetrics(m: HttpInstruments): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const labels = { method: ctx.method, route: typeof route === 'string' ? route : UNMATCHED_ROUTE, status: String(ctx.status) };
      m.httpRequests.inc(labels);
      m.httpDuration.observe(labels, seconds);
    }
  };
}
