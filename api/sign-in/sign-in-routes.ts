// The browser's sign-in flow (docs/dashboard.md, "Signing in"): not API operations but redirects
// and the session's own endpoints, under /auth/:
// - GET  /auth/methods         which ways to sign in this service offers (the sign-in page asks);
// - GET  /auth/oidc/start      → the identity provider, with PKCE, state and nonce (and
//        /auth/github/start    → GitHub, with PKCE and state);
// - GET  /auth/oidc/callback   ← the provider (and /auth/github/callback ← GitHub); a new
//                               session, then the page asked for (`next`);
// - GET  /auth/session         who is signed in, with the CSRF token the dashboard sends back
//                               (204: nobody);
// - POST /auth/sign-out        ends the session (needs the CSRF token);
// - POST /auth/cli/grant       the person approves `openmq login` (session and CSRF token): a code;
// - POST /auth/cli/token       the CLI exchanges the code and its PKCE verifier for its token.
// A failed sign-in lands on /sign-in?error=<code>, which says why in words.
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import type { Context } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../shared/platform/errors.js';
import type { Logger } from '../../shared/platform/logging.js';
import type { OrgRepository } from '../../shared/platform/accounts/org-repository.js';
import type { SignInModule } from '../../shared/sign-in/sign-in-module.js';
import { SIGN_IN_ERRORS, SignInError } from '../../shared/sign-in/services/sign-in-error.js';
import { safeNextPath } from '../../shared/sign-in/domain/next-path.js';
import { ATTEMPT_TTL_MS } from '../../shared/sign-in/services/sign-in-attempts.js';
import type { Began, Completed } from '../../shared/sign-in/services/oidc-sign-in.js';
import type { SignInProvider } from '../../shared/platform/accounts/actor.js';
import { parseCliExchange, parseCliGrant } from './cli-login-schemas.js';
import { sessionOfRequest, writeSessionCookie } from '../middleware/session-cookie.js';

export interface SignInRouteDeps {
  signIn: SignInModule;
  orgs: Pick<OrgRepository, 'findById'>;
  logger: Logger;
  /** PUBLIC_URL: the callback's address as the provider knows it; else the request's own origin. */
  publicUrl: string | null;
}

/** The short cookie that ties a callback to the browser that began the sign-in. */
const ATTEMPT_COOKIE = 'openmq_sign_in';

/** A sign-in that leaves for a provider and comes back (OpenID Connect, GitHub). */
interface RedirectSignIn {
  begin(redirectUri: string, next: string): Promise<Began>;
  complete(query: URLSearchParams, browserState: string | null): Promise<Completed>;
}
/** Sign-ins a client address may begin (or CLI codes it may try) per minute. */
const STARTS_PER_MINUTE = 30;

const jsonBody = bodyParser({ enableTypes: ['json'], jsonLimit: '16kb', strict: true });

async function consumeOrRefuse(limiter: RateLimiterMemory, client: string, what: string): Promise<void> {
  try {
    await limiter.consume(client);
  } catch (limited) {
    if (!(limited instanceof RateLimiterRes)) throw limited;
    const seconds = Math.max(1, Math.ceil(limited.msBeforeNext / 1000));
    throw new AppError('rate_limited', 'too_many_attempts', `too many ${what} from this address; try again in ${seconds} s`, [], {
      retryAfterSeconds: seconds,
    });
  }
}

export function signInRoutes(deps: SignInRouteDeps): ReturnType<Router['routes']> {
  const { signIn, logger } = deps;
  const router = new Router({ strict: true, sensitive: true });
  const starts = new RateLimiterMemory({ points: STARTS_PER_MINUTE, duration: 60 });
  const exchanges = new RateLimiterMemory({ points: STARTS_PER_MINUTE, duration: 60 });

  router.use(async (ctx, next) => {
    ctx.set('cache-control', 'no-store');
    await next();
  });

  router.get('/auth/methods', (ctx) => {
    ctx.body = {
      token: true,
      oidc: signIn.oidc ? { name: signIn.oidc.settings.displayName, start: '/auth/oidc/start' } : null,
      github: signIn.github ? { name: 'GitHub', start: '/auth/github/start' } : null,
      // The sign-in page's words for `?error=<code>`, so that they are written once.
      messages: SIGN_IN_ERRORS,
    };
  });

  const providers: [SignInProvider, RedirectSignIn | null][] = [
    ['oidc', signIn.oidc],
    ['github', signIn.github],
  ];
  for (const [name, provider] of providers) {
    const callbackPath = `/auth/${name}/callback`;
    const notConfigured = () =>
      new AppError('not_found', 'sign_in_not_configured', `sign-in with ${name === 'oidc' ? 'an OpenID Connect provider' : 'GitHub'} is not configured`);

    router.get(`/auth/${name}/start`, async (ctx) => {
      if (!provider) throw notConfigured();
      await consumeOrRefuse(starts, ctx.ip, 'sign-ins begun');
      const next = safeNextPath(ctx.query.next === undefined ? null : String(ctx.query.next));
      try {
        const began = await provider.begin(`${deps.publicUrl?.replace(/\/+$/, '') ?? `${ctx.protocol}://${ctx.host}`}${callbackPath}`, next);
        ctx.cookies.set(ATTEMPT_COOKIE, began.state, {
          httpOnly: true,
          sameSite: 'lax',
          secure: ctx.secure,
          path: callbackPath,
          expires: new Date(Date.now() + ATTEMPT_TTL_MS),
          overwrite: true,
        });
        ctx.redirect(began.url.href);
      } catch (err) {
        failed(ctx, err, next);
      }
    });

    router.get(callbackPath, async (ctx) => {
      if (!provider) throw notConfigured();
      const browserState = ctx.cookies.get(ATTEMPT_COOKIE) ?? null;
      ctx.cookies.set(ATTEMPT_COOKIE, null, { path: callbackPath, secure: ctx.secure, overwrite: true });
      let next: string | null = null;
      try {
        const completed = await provider.complete(new URLSearchParams(ctx.querystring), browserState);
        next = completed.next;
        const { secret, session } = await signIn.signIn.finish(completed);
        writeSessionCookie(ctx, secret, session.expiresAt);
        ctx.status = 303;
        ctx.redirect(completed.next);
      } catch (err) {
        failed(ctx, err, next);
      }
    });
  }

  router.get('/auth/session', async (ctx) => {
    const found = await sessionOfRequest(ctx, signIn.sessions, { csrf: false });
    // Nobody signed in is an answer, not an error: the dashboard asks this on every load.
    if (!found) {
      ctx.status = 204;
      return;
    }
    const { session } = found;
    const org = await deps.orgs.findById(session.orgId);
    ctx.body = {
      person: { name: session.person.name, email: session.person.email, provider: session.person.provider },
      organization: { slug: org?.slug ?? '' },
      role: session.role,
      csrfToken: session.csrfToken,
      expiresAt: session.expiresAt.toISOString(),
    };
  });

  router.post('/auth/cli/grant', jsonBody, async (ctx) => {
    const found = await sessionOfRequest(ctx, signIn.sessions, { csrf: true });
    if (!found) throw new AppError('unauthenticated', 'session_ended', 'no dashboard session: sign in');
    ctx.body = await signIn.cliLogin.grant(found.session, parseCliGrant(ctx.request.body));
  });

  router.post('/auth/cli/token', jsonBody, async (ctx) => {
    await consumeOrRefuse(exchanges, ctx.ip, 'token exchanges');
    const { code, verifier } = parseCliExchange(ctx.request.body);
    const created = await signIn.cliLogin.exchange(code, verifier);
    const org = await deps.orgs.findById(created.orgId);
    ctx.body = {
      id: created.token.id,
      token: created.value,
      name: created.token.name,
      role: created.token.role,
      expiresAt: created.token.expiresAt?.toISOString() ?? null,
      organization: { slug: org?.slug ?? '' },
    };
  });

  router.post('/auth/sign-out', async (ctx) => {
    const found = await sessionOfRequest(ctx, signIn.sessions, { csrf: true });
    if (found) await signIn.signIn.signOut(found.session, found.secret);
    writeSessionCookie(ctx, null);
    ctx.status = 204;
  });

  function failed(ctx: Context, err: unknown, next: string | null): void {
    if (!(err instanceof SignInError)) throw err;
    logger.warn({ code: err.code, detail: err.detail, client: ctx.ip }, 'sign-in failed');
    const query = new URLSearchParams({ error: err.code, ...(next && next !== '/' ? { next } : {}) });
    ctx.status = 303;
    ctx.redirect(`/sign-in?${query.toString()}`);
  }

  return router.routes();
}
