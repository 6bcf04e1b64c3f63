// The CLI's only way to the service: POST /v1/<operation> with the token, as any client would. The
// token goes to the service's own origin only: a redirect is reported, never followed (fetch would
// carry x-api-token to wherever it points), and an answer that is not the service's JSON is an error.
import { CliError, EXIT, exitCodeOfStatus } from './cli-error.js';
import type { AnswerOf, OperationName, RequestOf } from '../openapi/wire.js';

interface ErrorBody {
  error?: { code?: string; message?: string; details?: { path: string; message: string }[] };
}

/** Loopback hosts: a token sent there in plain http never crosses a network. */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** A warning when the token would travel unencrypted to another host; null when it stays safe. */
export function plainHttpWarning(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || LOOPBACK.test(url.hostname)) return null;
  return `warning: ${url.host} is reached over plain http — the API token travels unencrypted; use https`;
}

/**
 * What the user typed for a field the API checks against its own schema (an enum, a setting by
 * name): passed on as the wire type names it, and the service's 400 says what it accepts. The CLI
 * keeps no second copy of the server's rules.
 */
export const checkedByTheService = <T>(typed: unknown): T => typed as T;

export class ApiClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Calls one operation with its body; answers what it answers (both typed by the API's description). */
  async call<N extends OperationName>(operation: N, body: RequestOf<N>): Promise<AnswerOf<N>> {
    const url = `${this.base}/v1/${operation}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': this.token, 'user-agent': 'openmq-cli' },
        body: JSON.stringify(body),
        redirect: 'manual',
      });
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
      throw new CliError(EXIT.failed, `cannot reach openmq at ${this.base}: ${cause}`);
    }
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      throw new CliError(
        EXIT.failed,
        `the service at ${this.base} redirected ${operation} (HTTP ${res.status}${location ? ` to ${location}` : ''}); the token was not sent on — use the service's own URL as --url`,
      );
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      const error = (parsed as ErrorBody | null)?.error;
      const details = error?.details?.length ? ` (${error.details.map((d) => `${d.path || '/'}: ${d.message}`).join('; ')})` : '';
      const what = error ? `${error.code ?? 'error'}: ${error.message ?? ''}${details}` : `HTTP ${res.status}`;
      throw new CliError(exitCodeOfStatus(res.status), `${operation} failed — ${what}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new CliError(EXIT.failed, `${operation}: the answer from ${this.base} is not openmq's (expected a JSON object); check --url`);
    }
    return parsed as AnswerOf<N>;
  }
}
