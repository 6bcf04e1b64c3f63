// The CLI's only way to the service: POST /v1/<operation> with the token, as any client would.
import { CliError, EXIT, exitCodeOfStatus } from './cli-error.js';

interface ErrorBody {
  error?: { code?: string; message?: string; details?: { path: string; message: string }[] };
}

export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<T>(operation: string, body: unknown): Promise<T> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/v1/${operation}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': this.token, 'user-agent': 'openmq-cli' },
        body: JSON.stringify(body),
      });
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
      throw new CliError(EXIT.failed, `cannot reach openmq at ${this.baseUrl}: ${cause}`);
    }
    const text = await res.text();
    let parsed: unknown = null;
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
    return parsed as T;
  }
}
