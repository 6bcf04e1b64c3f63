// The v2 API's errors: the contract's envelope `{"error": {"code", "message"}}` with its
// UPPER_SNAKE codes. Use cases throw the same domain errors for both APIs; this table says what
// each is on v2 (status and code), so v1 keeps its own codes untouched.
import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { Logger } from '../../shared/platform/logging.js';
import type { components } from '../../openapi/v2/types.js';

export type V2ErrorCode = components['schemas']['ErrorCode'];

/** An error already in v2 terms (thrown by the v2 layer itself). */
export class V2Error extends Error {
  constructor(
    readonly status: number,
    readonly code: V2ErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'V2Error';
  }
}

export const validationFailed = (message: string) => new V2Error(400, 'VALIDATION_FAILED', message);

/** Domain codes whose v2 meaning differs from their kind's default. */
const BY_CODE: Readonly<Record<string, { status: number; code: V2ErrorCode }>> = {
  invalid_cursor: { status: 400, code: 'INVALID_CURSOR' },
  queue_not_empty: { status: 409, code: 'QUEUE_HAS_ACTIVE_ENTRIES' },
  queue_exists: { status: 409, code: 'QUEUE_ALREADY_EXISTS' },
  mode_change_in_progress: { status: 409, code: 'MODE_CHANGE_IN_PROGRESS' },
  pr_already_enqueued: { status: 409, code: 'PR_ALREADY_ENQUEUED' },
  pr_not_active: { status: 409, code: 'PR_NOT_IN_ACTIVE_STATE' },
  pr_not_restartable: { status: 422, code: 'PR_TESTS_NOT_RESTARTABLE' },
  pull_request_closed: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  pull_request_draft: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  fork_pull_request_not_allowed: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  // A stack that cannot be resolved (domain/stack.ts) makes the pull request not enqueueable.
  stack_base_unknown: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  stack_cycle: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  stack_too_deep: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  stack_member_not_mergeable: { status: 422, code: 'PR_NOT_ENQUEUEABLE' },
  branch_not_found: { status: 422, code: 'MERGE_QUEUE_NOT_CREATABLE' },
  queue_not_found: { status: 404, code: 'MERGE_QUEUE_NOT_FOUND' },
  pull_request_not_found: { status: 404, code: 'PR_NOT_FOUND' },
  pull_request_not_submitted: { status: 404, code: 'PR_NOT_FOUND' },
  repository_not_found: { status: 404, code: 'REPOSITORY_NOT_FOUND' },
  provider_url_not_found: { status: 404, code: 'PROVIDER_URL_NOT_FOUND' },
  test_run_not_found: { status: 404, code: 'VERIFICATION_RUN_NOT_FOUND' },
  impacted_targets_not_found: { status: 404, code: 'IMPACTED_TARGETS_NOT_FOUND' },
  missing_token: { status: 401, code: 'AUTHENTICATION_REQUIRED' },
};

const BY_KIND: Readonly<Record<AppError['kind'], { status: number; code: V2ErrorCode }>> = {
  invalid: { status: 400, code: 'VALIDATION_FAILED' },
  unauthenticated: { status: 401, code: 'INVALID_TOKEN' },
  forbidden: { status: 403, code: 'INSUFFICIENT_PERMISSIONS' },
  not_found: { status: 404, code: 'NOT_FOUND' },
  // Other conflicts are concurrent writes that kept losing: a retry succeeds.
  conflict: { status: 409, code: 'VALIDATION_FAILED' },
  too_large: { status: 413, code: 'VALIDATION_FAILED' },
  rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED' },
  // The forge (or the store) did not answer.
  unavailable: { status: 502, code: 'UPSTREAM_ERROR' },
};

function v2ErrorOf(err: unknown): V2Error | null {
  if (err instanceof V2Error) return err;
  if (err instanceof AppError) {
    const mapped = BY_CODE[err.code] ?? BY_KIND[err.kind];
    return new V2Error(mapped.status, mapped.code, err.message, err.hints.retryAfterSeconds);
  }
  // Koa's stack: a body that is not JSON, one too large.
  const status = err instanceof Error ? (err as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new V2Error(
      status === 413 ? 413 : 400,
      'VALIDATION_FAILED',
      err instanceof SyntaxError ? 'the request body is not valid JSON' : (err as Error).message,
    );
  }
  return null;
}

/** In front of every /v2 route: answers every error in the contract's envelope. */
export function v2ErrorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      const answer = v2ErrorOf(caught);
      if (!answer) {
        logger.error({ err: caught }, 'unhandled error (v2)');
        ctx.status = 500;
        ctx.body = { error: { code: 'INTERNAL_ERROR', message: `internal error; quote request id ${String(ctx.state.requestId ?? '')} when reporting it` } };
        return;
      }
      ctx.status = answer.status;
      if (answer.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(answer.retryAfterSeconds));
      ctx.body = { error: { code: answer.code, message: answer.message } };
    }
  };
}
