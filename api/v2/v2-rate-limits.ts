// The v2 API's rate limits, as the hosted product states them (docs/api-v2.md#rate-limits): every
// request of an organisation counts against one budget per second; reads of pull requests
// (`GET /v2/pull-requests…`) have their own budget per credential, and the metrics their own per
// organisation, neither counted in the first. Over budget: 429 RATE_LIMIT_EXCEEDED with
// Retry-After. Budgets are kept per API process.
import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { V2Error } from './v2-errors.js';
import type { V2Caller } from './v2-auth.js';

export interface V2RateLimitSettings {
  /** Per organisation (V2_REQUESTS_PER_SECOND, default 100); 0: no limit. */
  requestsPerSecond: number;
  /** Per API key or token, for GET /v2/pull-requests… (V2_PULL_REQUEST_READS_PER_SECOND, default 5). */
  pullRequestReadsPerSecond: number;
  /** Per organisation, for the metrics (V2_METRICS_PER_SECOND, default 5). */
  metricsPerSecond: number;
}

const limiter = (perSecond: number) => (perSecond > 0 ? new RateLimiterMemory({ points: perSecond, duration: 1 }) : null);

/** Which budget a request spends: by its operation. */
export type RateBudget = 'organisation' | 'pull_request_reads' | 'metrics';

export function budgetOf(operationId: string, method: string): RateBudget {
  if (operationId === 'mergeQueues.metrics' || operationId === 'mergeQueues.organizationMetrics') return 'metrics';
  if (method === 'get' && operationId.startsWith('pullRequests.') && operationId !== 'pullRequests.queueEntryHistoryBatch') return 'pull_request_reads';
  return 'organisation';
}

export class V2RateLimits {
  private readonly organisation: RateLimiterMemory | null;
  private readonly pullRequestReads: RateLimiterMemory | null;
  private readonly metrics: RateLimiterMemory | null;

  constructor(settings: V2RateLimitSettings) {
    this.organisation = limiter(settings.requestsPerSecond);
    this.pullRequestReads = limiter(settings.pullRequestReadsPerSecond);
    this.metrics = limiter(settings.metricsPerSecond);
  }

  /** After authentication: spends one request of the caller's budget for this operation. */
  middleware(budget: RateBudget): Middleware {
    return async (ctx, next) => {
      const caller = ctx.state.v2Caller as V2Caller;
      const [limit, key] =
        budget === 'pull_request_reads'
          ? [this.pullRequestReads, caller.credentialId]
          : budget === 'metrics'
            ? [this.metrics, caller.actor.orgId]
            : [this.organisation, caller.actor.orgId];
      if (limit) {
        try {
          await limit.consume(key);
        } catch (limited) {
          if (!(limited instanceof RateLimiterRes)) throw limited;
          const seconds = Math.max(1, Math.ceil(limited.msBeforeNext / 1000));
          throw new V2Error(429, 'RATE_LIMIT_EXCEEDED', `rate limit exceeded (${budget.replaceAll('_', ' ')}); retry after ${seconds} s`, seconds);
        }
      }
      await next();
    };
  }
}
