// Sign-in settings from the environment: sessions (SESSION_IDLE_MINUTES, SESSION_MAX_HOURS), the
// organisation people join (SIGN_IN_ORG), the OpenID Connect provider (OIDC_*) and GitHub
// (GITHUB_SIGN_IN_*, GITHUB_WEB_URL), each all or nothing, and the GitHub Actions login
// (GITHUB_ACTIONS_OIDC_*).
// docs/configuration.md lists every variable.
import { ROLES, type Role } from '../platform/accounts/roles.js';
import type { SignInSettings } from '../sign-in/sign-in-module.js';
import { commaList } from './worker-queues.js';
import type { OidcSettings } from '../sign-in/services/oidc-sign-in.js';
import type { GitHubSignInSettings } from '../sign-in/services/github-sign-in.js';
import type { GitHubConfig } from '../providers/github/github-config.js';
import type { GitHubActionsLoginSettings } from '../sign-in/services/github-actions-login.js';

export interface SignInVariables {
  SIGN_IN_ORG?: string | undefined;
  ORG_SLUG: string;
  SESSION_IDLE_MINUTES: number;
  SESSION_MAX_HOURS: number;
  OIDC_ISSUER_URL?: string | undefined;
  OIDC_CLIENT_ID?: string | undefined;
  OIDC_CLIENT_SECRET?: string | undefined;
  OIDC_SCOPES: string;
  OIDC_ROLE_CLAIM: string;
  OIDC_ADMIN_VALUES?: string | undefined;
  OIDC_WRITE_VALUES?: string | undefined;
  OIDC_READ_VALUES?: string | undefined;
  OIDC_DISPLAY_NAME: string;
  GITHUB_SIGN_IN_CLIENT_ID?: string | undefined;
  GITHUB_SIGN_IN_CLIENT_SECRET?: string | undefined;
  GITHUB_WEB_URL?: string | undefined;
  GITHUB_PERMISSION_CACHE_SECONDS: number;
  GITHUB_ACTIONS_OIDC_ISSUER: string;
  GITHUB_ACTIONS_OIDC_AUDIENCE: string;
  GITHUB_HOST: string;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** The settings; problems are pushed to `errors`, one per variable. `gitHub`: the GitHub provider, when configured. */
export function signInSettings(env: SignInVariables, gitHub: Pick<GitHubConfig, 'host' | 'apiUrl'> | null, errors: string[]): SignInSettings {
  if (env.SESSION_MAX_HOURS * 60 < env.SESSION_IDLE_MINUTES) {
    errors.push(`SESSION_IDLE_MINUTES: must not exceed SESSION_MAX_HOURS (${env.SESSION_MAX_HOURS} h), the absolute end of a session`);
  }
  return {
    orgSlug: env.SIGN_IN_ORG ?? env.ORG_SLUG,
    sessions: { idleMs: env.SESSION_IDLE_MINUTES * 60_000, maxMs: env.SESSION_MAX_HOURS * 3_600_000 },
    oidc: oidcSettings(env, errors),
    github: gitHubSignInSettings(env, gitHub, errors),
    permissionCacheMs: env.GITHUB_PERMISSION_CACHE_SECONDS * 1000,
    githubActions: gitHubActionsLoginSettings(env, errors),
  };
}

function gitHubActionsLoginSettings(env: SignInVariables, errors: string[]): GitHubActionsLoginSettings {
  const issuer = new URL(env.GITHUB_ACTIONS_OIDC_ISSUER);
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && LOOPBACK.test(issuer.hostname))) {
    errors.push('GITHUB_ACTIONS_OIDC_ISSUER: must be an https URL (http only on loopback)');
  }
  if (env.GITHUB_ACTIONS_OIDC_AUDIENCE.trim() === '') errors.push('GITHUB_ACTIONS_OIDC_AUDIENCE: must not be empty');
  return {
    issuer: env.GITHUB_ACTIONS_OIDC_ISSUER.replace(/\/+$/, ''),
    audience: env.GITHUB_ACTIONS_OIDC_AUDIENCE,
    repositoryHost: env.GITHUB_HOST.toLowerCase(),
  };
}

function gitHubSignInSettings(env: SignInVariables, gitHub: Pick<GitHubConfig, 'host' | 'apiUrl'> | null, errors: string[]): GitHubSignInSettings | null {
  const { GITHUB_SIGN_IN_CLIENT_ID: clientId, GITHUB_SIGN_IN_CLIENT_SECRET: clientSecret } = env;
  if (clientId === undefined && clientSecret === undefined) {
    if (env.GITHUB_WEB_URL !== undefined) errors.push('GITHUB_WEB_URL: set GITHUB_SIGN_IN_CLIENT_ID and GITHUB_SIGN_IN_CLIENT_SECRET too');
    return null;
  }
  if (!clientId || !clientSecret) {
    errors.push('GITHUB_SIGN_IN_CLIENT_ID: set GITHUB_SIGN_IN_CLIENT_ID and GITHUB_SIGN_IN_CLIENT_SECRET together, neither empty');
    return null;
  }
  if (!gitHub) {
    errors.push(
      "GITHUB_SIGN_IN_CLIENT_ID: sign-in with GitHub reads permissions with the service's GitHub credentials: configure GitHub too (GITHUB_APP_ID or GITHUB_TOKEN)",
    );
    return null;
  }
  const webUrl = (env.GITHUB_WEB_URL ?? `https://${gitHub.host}`).replace(/\/+$/, '');
  const url = new URL(webUrl);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
    errors.push('GITHUB_WEB_URL: must be an https URL (plain http only for a server on this machine)');
  }
  return { clientId, clientSecret, webUrl, apiUrl: gitHub.apiUrl };
}

function oidcSettings(env: SignInVariables, errors: string[]): OidcSettings | null {
  const given = [env.OIDC_ISSUER_URL, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
  if (given.every((v) => v === undefined)) {
    for (const name of ['OIDC_ADMIN_VALUES', 'OIDC_WRITE_VALUES', 'OIDC_READ_VALUES'] as const) {
      if (env[name] !== undefined) errors.push(`${name}: set OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too`);
    }
    return null;
  }
  const { OIDC_ISSUER_URL: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env;
  if (issuer === undefined || !clientId || !clientSecret) {
    errors.push('OIDC_ISSUER_URL: set OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together, none empty');
    return null;
  }
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
    errors.push('OIDC_ISSUER_URL: must be an https URL (plain http only for an issuer on this machine)');
  }
  const scopes = env.OIDC_SCOPES.split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid')) errors.push('OIDC_SCOPES: must include openid');
  const values = Object.fromEntries(ROLES.map((role) => [role, commaList(env[`OIDC_${role.toUpperCase() as Uppercase<Role>}_VALUES`])])) as Record<
    Role,
    string[]
  >;
  if (ROLES.every((role) => values[role].length === 0)) {
    errors.push(
      'OIDC_ADMIN_VALUES: name the claim values that grant each role (OIDC_ADMIN_VALUES, OIDC_WRITE_VALUES, OIDC_READ_VALUES; * for everyone), or nobody could sign in',
    );
  }
  return {
    issuer,
    clientId,
    clientSecret,
    scopes: scopes.join(' '),
    roles: { claim: env.OIDC_ROLE_CLAIM, values },
    displayName: env.OIDC_DISPLAY_NAME,
  };
}
