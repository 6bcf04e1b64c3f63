// The budget of unknown credentials per client address (AUTH_FAILURES_PER_MINUTE): a client that
// keeps presenting unknown tokens or keys is answered 429 for a while, before what it presents is
// even looked up; valid credentials never use it up. Shared by the v1 and v2 authentication.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../shared/platform/errors.js';

export class FailureBudget {
  private readonly limiter: RateLimiterMemory | null;

  constructor(private readonly perMinute: number) {
    this.limiter = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : null;
  }

  /** Throws 429 when the client has spent its budget. */
  async check(client: string): Promise<void> {
    const spent = this.limiter ? await this.limiter.get(client) : null;
    if (spent && spent.consumedPoints >= this.perMinute) throw tooManyFailures(spent);
  }

  /** Records one unknown credential; throws 429 once the budget is spent. */
  async spend(client: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(client);
    } catch (limited) {
      if (limited instanceof RateLimiterRes) throw tooManyFailures(limited);
      throw limited;
    }
  }
}

function tooManyFailures(state: RateLimiterRes): AppError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new AppError('rate_limited', 'too_many_failed_authentications', `too many unknown API tokens from this address; try again in ${seconds} s`, [], {
    retryAfterSeconds: seconds,
  });
}
