// The dashboard's session cookie: an opaque id, HttpOnly, SameSite=Lax, and behind TLS Secure with
// the `__Host-` prefix (no Domain, Path=/, so no other host or path can set or read it). Whether
// the request came over TLS is Koa's `ctx.secure` (X-Forwarded-Proto counts with TRUST_PROXY).
import type { Context } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { Session } from '../../shared/sign-in/store/session-repository.js';
import { carriesCsrfToken, type SessionService } from '../../shared/sign-in/services/session-service.js';

const PLAIN = 'openmq_session';
const OVER_TLS = '__Host-openmq_session';

export function readSessionCookie(ctx: Pick<Context, 'cookies' | 'secure'>): string | undefined {
  return ctx.cookies.get(ctx.secure ? OVER_TLS : PLAIN) || undefined;
}

/** Sets the cookie; null clears it. The browser forgets it when the session would end anyway. */
export function writeSessionCookie(ctx: Pick<Context, 'cookies' | 'secure'>, value: string | null, expires?: Date): void {
  ctx.cookies.set(ctx.secure ? OVER_TLS : PLAIN, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    overwrite: true,
    ...(value !== null && expires ? { expires } : {}),
  });
}

export const csrfRefused = () => new AppError('forbidden', 'csrf_token_invalid', 'the x-csrf-token header is missing or does not match the session');

/**
 * The live session of the request's cookie, with the cookie's value; null without one. With
 * `csrf`, a session whose CSRF token the request does not carry is refused (403).
 */
export async function sessionOfRequest(
  ctx: Pick<Context, 'cookies' | 'secure' | 'get'>,
  sessions: Pick<SessionService, 'resume'>,
  opts: { csrf: boolean },
): Promise<{ secret: string; session: Session } | null> {
  const secret = readSessionCookie(ctx);
  const session = secret === undefined ? null : await sessions.resume(secret);
  if (secret === undefined || !session) return null;
  if (opts.csrf && !carriesCsrfToken(session, ctx.get('x-csrf-token'))) throw csrfRefused();
  return { secret, session };
}
