// One spelling per resource: a path with an empty segment (`//`), a dot segment, any percent-
// encoding (no path this service serves needs one: its parameters are ids and numbers), a
// backslash, a control character or a trailing slash is answered 404 before anything else runs,
// for every router and the dashboard alike. The routers themselves match letter case exactly, so
// together no variant of a path reaches a handler, and none reaches authentication.
import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';

// `ctx.path` is the path as sent (not decoded, not normalised).
const EMPTY_SEGMENT = /\/\//;
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const PERCENT_BACKSLASH_OR_CONTROL = /[%\\\u0000-\u001f\u007f]/;

export function isCanonicalPath(path: string): boolean {
  if (!path.startsWith('/')) return false;
  if (path !== '/' && path.endsWith('/')) return false;
  return !(EMPTY_SEGMENT.test(path) || DOT_SEGMENT.test(path) || PERCENT_BACKSLASH_OR_CONTROL.test(path));
}

export function canonicalPathOnly(): Middleware {
  return async (ctx, next) => {
    if (!isCanonicalPath(ctx.path)) throw new AppError('not_found', 'route_not_found', 'no such endpoint');
    await next();
  };
}
