// Maps every error to the JSON envelope `{"error": {"code", "message", "details", "requestId"}}`
// with one table. Anything that is not an AppError is a 500 that reveals no internals.
import type { Middleware } from 'koa';
import { AppError, type ErrorKind } from '../../shared/errors.js';
import type { Logger } from '../../shared/logging.js';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  unavailable: 503,
};

interface HttpishError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  expose?: unknown;
  message?: unknown;
}

/** Errors raised by Koa's own stack (body parser, router) that carry an HTTP status. */
function fromHttpError(err: HttpishError): AppError | null {
  const status = typeof err.status === 'number' ? err.status : typeof err.statusCode === 'number' ? err.statusCode : null;
  if (status === 413) return new AppError('too_large', 'body_too_large', 'the request body is larger than the 20 MiB limit');
  if (status === 400 || status === 415 || status === 422) {
    const parseFailed = err.type === 'entity.parse.failed' || /JSON|parse|Unexpected/i.test(String(err.message ?? ''));
    return parseFailed
      ? new AppError('invalid', 'malformed_json', 'the request body is not valid JSON (a JSON object is expected)')
      : new AppError('invalid', 'bad_request', String(err.message ?? 'bad request'));
  }
  return null;
}

export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      const err = caught instanceof AppError ? caught : fromHttpError(caught as HttpishError);
      const requestId = String(ctx.state.requestId ?? '');
      if (err) {
        ctx.status = STATUS[err.kind];
        ctx.body = { error: { code: err.code, message: err.message, details: err.details, requestId } };
        if (ctx.status >= 500) logger.warn({ code: err.code, msg: err.message }, 'request failed');
        return;
      }
      logger.error({ err: caught }, 'unhandled error');
      ctx.status = 500;
      ctx.body = {
        error: {
          code: 'internal_error',
          message: `internal error; quote request id ${requestId} when reporting it`,
          details: [],
          requestId,
        },
      };
    }
  };
}
