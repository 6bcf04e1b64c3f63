// Sign-in settings from the environment: sessions (SESSION_IDLE_MINUTES, SESSION_MAX_HOURS), the
// organisation people join (SIGN_IN_ORG) and the OpenID Connect provider (OIDC_*), all or nothing.
// docs/configuration.md lists every variable.
import { ROLES, type Role } from '../platform/accounts/roles.js';
import type { SignInSettings } from '../sign-in/sign-in-module.js';
import type { OidcSettings } from '../sign-in/services/oidc-sign-in.js';

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
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** The settings; problems are pushed to `errors`, one per variable. */
export function signInSettings(env: SignInVariables, errors: string[]): SignInSettings {
  if (env.SESSION_MAX_HOURS * 60 < env.SESSION_IDLE_MINUTES) {
    errors.push(`SESSION_IDLE_MINUTES: must not exceed SESSION_MAX_HOURS (${env.SESSION_MAX_HOURS} h), the absolute end of a session`);
  }
  return {
    orgSlug: env.SIGN_IN_ORG ?? env.ORG_SLUG,
    sessions: { idleMs: env.SESSION_IDLE_MINUTES * 60_000, maxMs: env.SESSION_MAX_HOURS * 3_600_000 },
    oidc: oidcSettings(env, errors),
  };
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
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) {
    errors.push('OIDC_ISSUER_URL: set OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together');
    return null;
  }
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
    errors.push('OIDC_ISSUER_URL: must be an https URL (plain http only for an issuer on this machine)');
  }
  const scopes = env.OIDC_SCOPES.split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid')) errors.push('OIDC_SCOPES: must include openid');
  const values = Object.fromEntries(ROLES.map((role) => [role, list(env[`OIDC_${role.toUpperCase() as Uppercase<Role>}_VALUES`])])) as Record<Role, string[]>;
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
