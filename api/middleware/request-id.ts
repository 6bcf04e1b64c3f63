// Accepts a caller's X-Request-Id when it is short and safe, otherwise makes one; puts it on the
// response and into the log context of everything the request does.
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { withLogContext } from '../../shared/platform/logging.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): Middleware {
  return async (ctx, next) => {
    const inbound = ctx.get('x-request-id');
    const id = SAFE_ID.test(inbound) ? inbound : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await withLogContext({ requestId: id }, next);
  };
}
