// Sends one webhook request: through a connection whose address the destination policy checked
// (no redirect followed, no second DNS answer used), bounded in time as a whole and in the bytes
// read of the answer, which is never used. Failures are described coarsely — refused, no answer
// in time, HTTP status, or "connection failed" — so that delivery logs cannot serve as a port
// scanner.
import { Agent, errors, request } from 'undici';
import { DestinationRefused, type DestinationPolicy } from './destination-policy.js';

/** Of a receiver's answer at most this much is read (then the connection is dropped). */
export const MAX_ANSWER_BYTES = 4096;

export interface SendOutcome {
  ok: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly policy: DestinationPolicy,
    /** A receiver that has not answered in full by then has failed the attempt. */
    readonly timeoutMs: number,
  ) {
    this.agent = new Agent({
      connect: { lookup: policy.lookup, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  async post(urlText: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = this.policy.parse(urlText);
      this.policy.checkBeforeConnect(url);
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { ok, responseCode: res.statusCode, durationMs: elapsed(), error: ok ? null : `HTTP ${res.statusCode}` };
    } catch (err) {
      return { ok: false, responseCode: null, durationMs: elapsed(), error: this.describe(err) };
    }
  }

  private describe(err: unknown): string {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    if (cause instanceof DestinationRefused) return `refused: ${cause.message}`;
    if (err instanceof DestinationRefused) return `refused: ${err.message}`;
    const timedOut =
      (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) ||
      err instanceof errors.HeadersTimeoutError ||
      err instanceof errors.BodyTimeoutError ||
      err instanceof errors.ConnectTimeoutError;
    return timedOut ? `no answer within ${this.timeoutMs} ms` : 'connection failed';
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
