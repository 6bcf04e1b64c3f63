// Organisations, API tokens and the audit trail: the platform's accounts, over one database. The
// token use cases (TokenService) serve the API and `npm run token` alike.
import type { Database } from '../database/collection.js';
import { DbAuditRepository } from '../audit/audit-log.js';
import { DbOrgRepository } from './org-repository.js';
import { DbTokenRepository } from './token-repository.js';
import { TokenService, type TokenSettings } from './token-service.js';
import { ApiKeyService } from './api-key-service.js';

export interface AccountsStore {
  orgs: DbOrgRepository;
  tokens: DbTokenRepository;
  audit: DbAuditRepository;
}

export interface AccountsModule {
  store: AccountsStore;
  /** createToken, listTokens, revokeToken, and personal tokens. */
  tokens: TokenService;
  /** createApiKey, listApiKeys, revokeApiKey: the v2 API's keys. */
  apiKeys: ApiKeyService;
}

export function createAccountsStore(db: Database): AccountsStore {
  return { orgs: new DbOrgRepository(db), tokens: new DbTokenRepository(db), audit: new DbAuditRepository(db) };
}

export function createAccountsModule(db: Database, settings: TokenSettings): AccountsModule {
  const store = createAccountsStore(db);
  return {
    store,
    tokens: new TokenService({ tokens: store.tokens, audit: store.audit, settings }),
    apiKeys: new ApiKeyService({ tokens: store.tokens, audit: store.audit }),
  };
}
