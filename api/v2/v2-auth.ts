// Who calls the v2 API: `Authorization: Bearer <credential>`, where the credential is a v2 API key
// (its merge-queue permissions) or a v1 API token (the permissions its role amounts to:
// docs/decisions.md), or `x-trunk-token` with the token of a GitHub Actions login. Unknown credentials spend the client address's failure budget, as on v1.
// Personal tokens of people signed in with GitHub are refused: their role depends on the
// repository a request names, which v2 requests address by id (docs/api-v2.md#keys).
import type { Middleware } from 'koa';
import type { TokenRepository } from '../../shared/platform/accounts/token-repository.js';
import type { ApiKeyActor, TokenActor } from '../../shared/platform/accounts/actor.js';
import { V2Error } from './v2-errors.js';
import type { Logger } from '../../shared/platform/logging.js';
import { FailureBudget } from '../middleware/failure-budget.js';
import { credentialActorOf } from '../../shared/platform/accounts/credential-actor.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';

export interface V2Caller {
  actor: ApiKeyActor | TokenActor;
  /** The key's or token's id: what the per-credential rate limit counts. */
  credentialId: string;
  /** A GitHub Actions login: the one repository whose impacted targets it may upload, and nothing else; null otherwise. */
  uploadsFor: RepoRef | null;
}

const BEARER = /^Bearer[ ]+([^\s]{1,1024})$/i;

export function v2Authenticate(tokens: TokenRepository, logger: Logger, failuresPerMinute: number): Middleware {
  const failures = new FailureBudget(failuresPerMinute);
  return async (ctx, next) => {
    const header = ctx.get('authorization').trim();
    // The contract's second scheme: the token of a GitHub Actions login, in x-trunk-token.
    const trunkToken = ctx.get('x-trunk-token').trim();
    if (!header && !trunkToken) throw new V2Error(401, 'AUTHENTICATION_REQUIRED', 'send an API key as Authorization: Bearer <key>');
    const client = ctx.ip;
    await failures.check(client);
    const presented = header ? BEARER.exec(header)?.[1] : trunkToken.length <= 1024 ? trunkToken : undefined;
    const token = presented ? await tokens.authenticate(presented) : null;
    if (!token) {
      logger.warn({ client }, 'v2 authentication failed: unknown API key');
      await failures.spend(client);
      throw new V2Error(401, 'INVALID_TOKEN', 'the API key is not valid (unknown, revoked or expired)');
    }
    if (token.owner?.githubLogin) {
      throw new V2Error(403, 'INSUFFICIENT_PERMISSIONS', 'personal tokens of people signed in with GitHub work on v1 only; create a v2 API key');
    }
    const actor = credentialActorOf(token);
    ctx.state.v2Caller = { actor, credentialId: token.id, uploadsFor: token.uploadsFor } satisfies V2Caller;
    await next();
  };
}

/** The caller of a v2 request (set by v2Authenticate). */
export function v2CallerOf(state: { v2Caller?: V2Caller }): V2Caller {
  if (!state.v2Caller) throw new V2Error(401, 'AUTHENTICATION_REQUIRED', 'send an API key as Authorization: Bearer <key>');
  return state.v2Caller;
}
