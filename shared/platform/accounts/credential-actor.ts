// Who a stored credential acts as: a v1 token by its role, a v2 key by its permissions. The one
// place both authentications (api/middleware/auth.ts, api/v2/v2-auth.ts) build their actor.
import type { ApiKeyActor, TokenActor } from './actor.js';
import type { ApiToken } from './token-repository.js';

export const tokenActorOf = (token: ApiToken): TokenActor => ({
  kind: 'token',
  orgId: token.orgId,
  tokenId: token.id,
  name: token.name,
  role: token.role,
  owner: token.owner?.name ?? null,
});

/** A v2 key's actor; a v1 token (no permissions) acts with its role. */
export const credentialActorOf = (token: ApiToken): ApiKeyActor | TokenActor =>
  token.permissions !== null ? { kind: 'api_key', orgId: token.orgId, keyId: token.id, name: token.name, permissions: token.permissions } : tokenActorOf(token);
