// The dashboard's session cookie: an opaque id, HttpOnly, SameSite=Lax, and behind TLS Secure with
// the `__Host-` prefix (no Domain, Path=/, so no other host or path can set or read it). Whether
// the request came over TLS is Koa's `ctx.secure` (X-Forwarded-Proto counts with TRUST_PROXY).
import type { Context } from 'koa';

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
