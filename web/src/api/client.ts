// The dashboard's only way to the service: the public API, same origin, the token in the
// x-api-token header (never in a URL) — or, for a person signed in with the identity provider, the
// session cookie the browser sends itself, with the session's CSRF token in x-csrf-token. A 401
// ends the session.
import { readToken } from '../session-storage';
import type { AnswerOf, OperationName, RequestOf } from '../../../openapi/wire';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the service no longer accepts the token (revoked, or another service). */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** The signed-in person's CSRF token; null with a token session (or none). */
let csrfToken: string | null = null;
export function setCsrfToken(value: string | null): void {
  csrfToken = value;
}

/** Calls one operation with its body; answers what it answers (both typed by the API's description). */
export async function call<N extends OperationName>(operation: N, body: RequestOf<N>, token = readToken()): Promise<AnswerOf<N>> {
  const res = await fetch(`/v1/${operation}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-api-token': token } : csrfToken ? { 'x-csrf-token': csrfToken } : {}) },
    body: JSON.stringify(body),
  });
  const payload: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const error = (payload as { error?: { code?: string; message?: string } } | null)?.error;
    if (res.status === 401) onUnauthorized();
    throw new ApiError(res.status, error?.code ?? 'http_error', error?.message ?? `the service answered ${res.status}`);
  }
  return payload as AnswerOf<N>;
}
