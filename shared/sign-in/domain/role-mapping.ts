// Which role a person signed in through an identity provider acts with: read from one claim of
// their ID token (a list of groups, or one value), matched against the values the operator
// listed for each role. The highest role that matches wins; a person matching none has no access.
import { ROLES, type Role } from '../../platform/accounts/roles.js';

/** `*` in a role's values: everyone who signs in holds at least that role. */
export const EVERYONE = '*';

export interface RoleMapping {
  /** The claim to read, e.g. `groups`; a dotted path reaches into objects (`realm_access.roles`). */
  claim: string;
  /** The claim's values that grant each role. */
  values: Readonly<Record<Role, readonly string[]>>;
}

/** The claim's values: a string, or the strings of an array; anything else holds none. */
export function claimValues(claims: Readonly<Record<string, unknown>>, claim: string): string[] {
  let value: unknown = claims;
  for (const part of claim.split('.')) {
    value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The role these claims grant; null: none. */
export function roleFromClaims(claims: Readonly<Record<string, unknown>>, mapping: RoleMapping): Role | null {
  const held = new Set(claimValues(claims, mapping.claim));
  for (const role of [...ROLES].reverse()) {
    if (mapping.values[role].some((v) => v === EVERYONE || held.has(v))) return role;
  }
  return null;
}
