// People signing in to the dashboard: sessions, the OpenID Connect provider when one is
// configured, GitHub (roles per repository), the step that turns a finished sign-in into a
// session, and `openmq login`. Built by the composition
// root; the API's authentication resumes sessions through it (api/middleware/auth.ts).
import { GitHubActionsLoginService, type GitHubActionsLoginSettings } from './services/github-actions-login.js';
import type { RepoRef } from '../platform/repo-ref.js';
import type { Database } from '../platform/database/collection.js';
import type { AuditTrail } from '../platform/audit/audit-log.js';
import type { OrgRepository } from '../platform/accounts/org-repository.js';
import type { TokenRepository } from '../platform/accounts/token-repository.js';
import type { Logger } from '../platform/logging.js';
import { createSignInStore, type SignInStore } from './store/sign-in-store.js';
import { SessionService, type SessionSettings } from './services/session-service.js';
import { OidcSignIn, type OidcSettings } from './services/oidc-sign-in.js';
import { SignInService } from './services/sign-in-service.js';
import { CliLogin } from './services/cli-login.js';
import { GitHubSignIn, type GitHubSignInSettings } from './services/github-sign-in.js';
import { RepositoryAccess, type PermissionOf } from './services/repository-access.js';
import type { TokenService } from '../platform/accounts/token-service.js';

export interface SignInSettings {
  /** The organisation people who sign in belong to (SIGN_IN_ORG). */
  orgSlug: string;
  sessions: SessionSettings;
  /** Null when no OpenID Connect provider is configured. */
  oidc: OidcSettings | null;
  /** Null when sign-in with GitHub is not configured (GITHUB_SIGN_IN_CLIENT_ID). */
  github: GitHubSignInSettings | null;
  /** How long a person's permission on a repository, read from GitHub, is kept (GITHUB_PERMISSION_CACHE_SECONDS). */
  permissionCacheMs: number;
  /** Whose GitHub Actions tokens may be exchanged for an upload token (GITHUB_ACTIONS_OIDC_*). */
  githubActions: GitHubActionsLoginSettings;
}

export interface SignInModule {
  store: SignInStore;
  sessions: SessionService;
  oidc: OidcSignIn | null;
  github: GitHubSignIn | null;
  /** Roles per repository of people signed in with GitHub; null without GitHub. */
  repositoryAccess: RepositoryAccess | null;
  signIn: SignInService;
  /** `openmq login`: personal tokens for the CLI, approved in the dashboard. */
  cliLogin: CliLogin;
  /** A GitHub Actions run's token exchanged for one that uploads impacted targets of its repository. */
  githubActions: GitHubActionsLoginService;
}

export function createSignInModule(
  db: Database,
  settings: SignInSettings,
  deps: {
    orgs: Pick<OrgRepository, 'ensure'>;
    tokens: Pick<TokenRepository, 'limitOwnedBy' | 'register'>;
    /** The organisations with a merge queue on a repository (who a GitHub Actions login acts for). */
    orgsOfRepository: (repo: RepoRef) => Promise<string[]>;
    tokenService: Pick<TokenService, 'createPersonal'>;
    audit: AuditTrail;
    logger: Logger;
    /** GitHub's answer to "what may this login do on this repository", when GitHub is configured. */
    gitHub: { host: string; permissionOf: PermissionOf } | null;
  },
): SignInModule {
  const store = createSignInStore(db);
  const sessions = new SessionService(store.sessions, settings.sessions);
  return {
    store,
    sessions,
    oidc: settings.oidc ? new OidcSignIn(settings.oidc, store.attempts) : null,
    github: settings.github ? new GitHubSignIn(settings.github, store.attempts) : null,
    repositoryAccess: deps.gitHub ? new RepositoryAccess(deps.gitHub.host, deps.gitHub.permissionOf, settings.permissionCacheMs) : null,
    cliLogin: new CliLogin(store.cliGrants, deps.tokenService),
    githubActions: new GitHubActionsLoginService({ settings: settings.githubActions, tokens: deps.tokens, orgsOf: deps.orgsOfRepository, logger: deps.logger }),
    signIn: new SignInService({ orgSlug: settings.orgSlug, orgs: deps.orgs, sessions, tokens: deps.tokens, audit: deps.audit, logger: deps.logger }),
  };
}
