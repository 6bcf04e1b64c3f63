// `x-api-token` on every /v1 request. The token decides the organisation; nothing of another
// organisation is ever visible through it.
import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { TokenRepository } from '../../shared/accounts/token-repository.js';

export interface AuthState {
  orgId: string;
  tokenId: string;
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
    const auth: AuthState = { orgId: token.orgId, tokenId: token.id };
    ctx.state.auth = auth;
    await next();
  };
}

export function authOf(state: { auth?: AuthState }): AuthState {
  if (!state.auth) throw new AppError('unauthenticated', 'missing_token', 'the x-api-token header is required');
  return state.auth;
}
