// `x-api-token` on every operation that is not public — or, from the dashboard, the session cookie
// of a person signed in (docs/dashboard.md), with the session's CSRF token in `x-csrf-token` on
// every request but a read by GET. The token (or the session) decides the organisation and the
// role; nothing of another organisation is ever visible through it. A client address that keeps
// presenting unknown tokens is answered 429 for a while, before its token is even looked up; valid
// tokens cost nothing extra and never use up the budget.
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { FailureBudget } from './failure-budget.js';
import { tokenActorOf } from '../../shared/platform/accounts/credential-actor.js';
import { AppError } from '../../shared/platform/errors.js';
import type { Logger } from '../../shared/platform/logging.js';
import type { TokenRepository } from '../../shared/platform/accounts/token-repository.js';
import type { PersonActor, TokenActor } from '../../shared/platform/accounts/actor.js';
import { orgRoleOf, personActorOf, type SessionService } from '../../shared/sign-in/services/session-service.js';
import { readSessionCookie, sessionOfRequest } from './session-cookie.js';
import type { PerRepositoryCaller } from './repository-scope.js';
import type { Role } from '../../shared/platform/accounts/roles.js';

export interface AuthenticationSettings {
  /** Unknown tokens a client address may present per minute before it is answered 429; 0: no limit. */
  failuresPerMinute: number;
}

/** A short, stable mark of a presented token for the logs: never the token, never enough to use it. */
const tokenMark = (presented: string) => createHash('sha256').update(presented, 'utf8').digest('hex').slice(0, 12);

const unknownToken = () => new AppError('unauthenticated', 'invalid_token', 'the API token is not valid');

/** Requests a browser can make that may change something: all but reads by GET (and HEAD). */
const mayChange = (method: string) => method !== 'GET' && method !== 'HEAD';

export function authenticate(tokens: TokenRepository, sessions: SessionService, logger: Logger, settings: AuthenticationSettings): Middleware {
  const failures = new FailureBudget(settings.failuresPerMinute);
  return async (ctx, next) => {
    const client = ctx.ip;
    await failures.check(client);
    const presented = ctx.get('x-api-token').trim();
    if (!presented) {
      if (readSessionCookie(ctx) === undefined) throw missingCredentials();
      const found = await sessionOfRequest(ctx, sessions, { csrf: mayChange(ctx.method) }).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'csrf_token_invalid') logger.warn({ client }, 'request refused: missing or wrong CSRF token');
        throw err;
      });
      if (!found) throw new AppError('unauthenticated', 'session_ended', 'the dashboard session has ended: sign in again');
      const { session } = found;
      const role = orgRoleOf(session);
      const login = session.person.login;
      // A role per repository (GitHub) is read once the request's body says which (repository-scope.ts).
      if (role !== null) ctx.state.actor = personActorOf(session, role);
      else if (login)
        ctx.state.perRepository = { githubLogin: login, cap: null, actorWith: (r: Role) => personActorOf(session, r) } satisfies PerRepositoryCaller;
      else throw new AppError('forbidden', 'role_not_allowed', 'this session holds no role');
      await next();
      return;
    }
    const token = presented.length <= 1024 ? await tokens.authenticate(presented) : null;
    if (!token) {
      logger.warn({ client, tokenMark: tokenMark(presented) }, 'authentication failed: unknown API token');
      await failures.spend(client);
      throw unknownToken();
    }
    if (token.permissions !== null) {
      throw new AppError('unauthenticated', 'api_key_v2_only', 'this is a v2 API key: send it as Authorization: Bearer to the /v2 API (v1 takes an API token)');
    }
    const actor = tokenActorOf(token);
    const githubLogin = token.owner?.githubLogin;
    // A personal token of a GitHub sign-in: its role is a cap on the person's permission per repository.
    if (githubLogin) ctx.state.perRepository = { githubLogin, cap: token.role, actorWith: (r: Role) => ({ ...actor, role: r }) } satisfies PerRepositoryCaller;
    else ctx.state.actor = actor;
    await next();
  };
}

const missingCredentials = () => new AppError('unauthenticated', 'missing_token', 'the x-api-token header (or a dashboard session) is required');

/** Who this request acts as: the token or the signed-in person (set by `authenticate`). */
export function actorOf(state: { actor?: TokenActor | PersonActor }): TokenActor | PersonActor {
  if (!state.actor) throw missingCredentials();
  return state.actor;
}
