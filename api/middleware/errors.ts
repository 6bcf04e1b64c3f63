// Maps every error to the JSON envelope `{"error": {"code", "message", "details", "requestId"}}`:
// domain errors (AppError) by their kind with one table, HTTP errors of Koa's own stack (body
// parser, router) by their status and type. Anything else is a 500 that reveals no internals.
import type { Middleware } from 'koa';
import { AppError, type ErrorDetail, type ErrorKind } from '../../shared/platform/errors.js';
import type { Logger } from '../../shared/platform/logging.js';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

interface Answer {
  status: number;
  code: string;
  message: string;
  details: ErrorDetail[];
  retryAfterSeconds?: number;
}

/** An http-errors error (Koa, @koa/router) or a body-parser error, which carry their status. */
function httpStatusOf(err: unknown): number | null {
  if (!(err instanceof Error)) return null;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && value >= 400 && value < 500 ? value : null;
}

/** Codes of the other 4xx statuses Koa's stack raises (koa-send refuses a path with 403 or 400, say). */
const CODE_OF_STATUS: Readonly<Record<number, string>> = { 403: 'forbidden', 404: 'not_found', 406: 'not_acceptable', 411: 'length_required' };

function fromHttpError(err: unknown): Answer | null {
  const status = httpStatusOf(err);
  if (status === null) return null;
  const answer = (code: string, message: string): Answer => ({ status, code, message, details: [] });
  switch (status) {
    case 405:
      return answer('method_not_allowed', 'this endpoint does not accept that HTTP method');
    case 413:
      return answer('body_too_large', 'the request body is larger than the 20 MiB limit');
    case 400:
    case 415:
    case 422:
      // The JSON body parser raises SyntaxError for a body that is not a JSON object.
      return err instanceof SyntaxError
        ? { ...answer('malformed_json', 'the request body is not valid JSON (a JSON object is expected)'), status: 400 }
        : answer('bad_request', (err as Error).message || 'bad request');
    default:
      // Never a 5xx for what the client sent: any other 4xx keeps its status, with a fixed message.
      return answer(CODE_OF_STATUS[status] ?? 'bad_request', `the request was refused (HTTP ${status})`);
  }
}

function toAnswer(err: unknown): Answer | null {
  if (err instanceof AppError) {
    const answer: Answer = { status: STATUS[err.kind], code: err.code, message: err.message, details: err.details };
    if (err.hints.retryAfterSeconds !== undefined) answer.retryAfterSeconds = err.hints.retryAfterSeconds;
    return answer;
  }
  return fromHttpError(err);
}

export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      const answer = toAnswer(caught);
      const requestId = String(ctx.state.requestId ?? '');
      if (answer) {
        ctx.status = answer.status;
        if (answer.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(answer.retryAfterSeconds));
        ctx.body = { error: { code: answer.code, message: answer.message, details: answer.details, requestId } };
        if (ctx.status >= 500) logger.warn({ code: answer.code, msg: answer.message }, 'request failed');
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
