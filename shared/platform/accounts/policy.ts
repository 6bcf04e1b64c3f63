// What an actor may do, in one place for every entry point (the API, the dashboard, `/trunk`
// comments, the label, the CLI, operator scripts). A token acts with its role, a person signed in
// to the dashboard with the role their sign-in granted, a person on the forge with the role their
// repository permission grants, an operator tool with every right.
import { AppError } from '../errors.js';
import type { Actor, RepositoryRole } from './actor.js';
import { roleAllows, type Role } from './roles.js';
import { PERMISSION_FOR_CAPABILITY, PERMISSION_TITLES, ROLE_FOR_CAPABILITY, type Capability } from './permissions.js';

/**
 * A repository permission as an API role: admin and maintain act as admins of that repository's
 * queues (so they may submit urgent), write as write, triage and read only read (docs/api.md).
 */
const ROLE_OF_REPOSITORY_ROLE: Readonly<Record<RepositoryRole, Role | null>> = {
  admin: 'admin',
  maintain: 'admin',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: null,
};

/** The API role a repository permission grants; null: none. */
export const roleOfRepositoryRole = (role: RepositoryRole): Role | null => ROLE_OF_REPOSITORY_ROLE[role];

/** The API role an actor acts with; null: none at all. */
export function effectiveRole(actor: Actor): Role | null {
  switch (actor.kind) {
    case 'token':
    case 'person':
      return actor.role;
    // A key reads; what it may change is its permissions' business (requireCapability).
    case 'api_key':
      return 'read';
    case 'forge_user':
      return ROLE_OF_REPOSITORY_ROLE[actor.repositoryRole];
    case 'operator':
      return 'admin';
  }
}

export function actorCan(actor: Actor, needed: Role): boolean {
  const role = effectiveRole(actor);
  return role !== null && roleAllows(role, needed);
}

/** A refusal by role, with what was needed and what was held in words a reply can reuse. */
export class RoleRefused extends AppError {
  constructor(
    what: string,
    /** e.g. "a token with the admin role", "write permission" */
    readonly needs: string,
    /** e.g. "this token has the read role", "read permission", "no permission" */
    readonly holds: string,
    forgeUser: boolean,
  ) {
    super('forbidden', 'role_not_allowed', forgeUser ? `${what} needs ${needs} on the repository; you have ${holds}` : `${what} needs ${needs}; ${holds}`);
  }
}

function refusal(actor: Actor, needed: Role, what: string): RoleRefused {
  if (actor.kind === 'forge_user') {
    const needs = needed === 'admin' ? 'admin or maintain permission' : `${needed} permission`;
    const holds = actor.repositoryRole === 'none' ? 'no permission' : `${actor.repositoryRole} permission`;
    return new RoleRefused(what, needs, holds, true);
  }
  if (actor.kind === 'api_key') return new RoleRefused(what, `a token with the ${needed} role`, 'API keys hold permissions, not roles', false);
  if (actor.kind === 'person') return new RoleRefused(what, `the ${needed} role`, `you are signed in with the ${actor.role} role`, false);
  return new RoleRefused(what, `a token with the ${needed} role`, `this token has the ${effectiveRole(actor)} role`, false);
}

/** Refuses with 403 `role_not_allowed` unless the actor holds `needed`; `what` names the request. */
export function requireRole(actor: Actor, needed: Role, what: string): void {
  if (!actorCan(actor, needed)) throw refusal(actor, needed, what);
}

/** A refusal by permission: what the key lacks, as the hosted product names it. */
export class PermissionRefused extends AppError {
  constructor(
    what: string,
    readonly permission: string,
  ) {
    super('forbidden', 'insufficient_permissions', `${what} needs the "${permission}" permission; this API key does not hold it`);
  }
}

/**
 * Refuses with 403 unless the actor may do `capability`: an API key by its permissions, anyone
 * else by the role the capability takes (the same rule as before keys existed).
 */
export function requireCapability(actor: Actor, capability: Capability, what: string): void {
  if (actor.kind === 'api_key') {
    const permission = PERMISSION_FOR_CAPABILITY[capability];
    if (!actor.permissions.includes(permission)) throw new PermissionRefused(what, PERMISSION_TITLES[permission]);
    return;
  }
  requireRole(actor, ROLE_FOR_CAPABILITY[capability], what);
}
