// One log line per request: method, route template, status, duration, and the id of the token or
// API key that made it (every use of a credential is attributable). Mounted outside the
// error handler, so the status is the one the client got. Refused credentials and roles (401,
// 403) and rate limits (429) are warnings: probing and guessing must show in the logs.
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/platform/logging.js';

const WARN_STATUSES = new Set([401, 403, 429]);

interface CallerState {
  actor?: { kind: string; tokenId?: string };
  v2Caller?: { credentialId: string };
}

/** The id of the credential a request was authenticated with, when it was a token or a key. */
function credentialOf(state: CallerState): string | undefined {
  return state.v2Caller?.credentialId ?? (state.actor?.kind === 'token' ? state.actor.tokenId : undefined);
}

export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.path;
      const credential = credentialOf(ctx.state as CallerState);
      const line = { method: ctx.method, route, status: ctx.status, ms: Math.round(ms * 10) / 10, client: ctx.ip, ...(credential ? { credential } : {}) };
      if (ctx.status >= 500) logger.error(line, 'request');
      else if (WARN_STATUSES.has(ctx.status)) logger.warn(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
