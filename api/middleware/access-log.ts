// One log line per request: method, route template, status and duration.
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logging.js';

export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.path;
      const line = { method: ctx.method, route, status: ctx.status, ms: Math.round(ms * 10) / 10 };
      if (ctx.status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
