// `x-api-token` on every /v1 request. The token decides the organisation; nothing of another
// organisation is ever visible through it.
import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { TokenRepository } from '../../shared/accounts/token-repository.js';
import type { Role } from '../../shared/accounts/roles.js';
import type { Actor } from '../../shared/audit/store/audit-log.js';

export interface AuthState {
  orgId: string;
  tokenId: string;
  tokenName: string;
  role: Role;
}

export function requireToken(tokens: TokenRepository): Middleware {
  return async (ctx, next) => {
    const presented = ctx.get('x-api-token').trim();
    if (!presented) {
      throw new AppError('unauthenticated', 'missing_token', 'the x-api-token header is required');
    }
    if (presented.length > 1024) {
      throw new AppError('unauthenticated', 'invalid_token', 'the API token is not valid');
    }
    const token = await tokens.authenticate(presented);
    if (!token) throw new AppError('unauthenticated', 'invalid_token', 'the API token is not valid');
    const auth: AuthState = { orgId: token.orgId, tokenId: token.id, tokenName: token.name, role: token.role };
    ctx.state.auth = auth;
    await next();
  };
}

export function authOf(state: { auth?: AuthState }): AuthState {
  if (!state.auth) throw new AppError('unauthenticated', 'missing_token', 'the x-api-token header is required');
  return state.auth;
}

/** The actor the audit trail records for this request's token. */
export function auditActorOf(state: { auth?: AuthState }): Actor {
  const auth = authOf(state);
  return { tokenId: auth.tokenId, name: auth.tokenName };
}
