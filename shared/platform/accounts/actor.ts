// Who asks a use case to act: an API token (its organisation and role), a person signed in to the
// dashboard (with the role their identity provider's claims grant), a person on the forge (a
// `/trunk` comment or the enqueueing label, with their permission on the repository as the forge
// reported it at that moment), or an operator's tool on the server (`npm run token`).
// Every use case that changes something takes one, checks it with policy.ts and records it.
import type { Role } from './roles.js';
import type { MergeQueuePermission } from './permissions.js';

/** A person's role on a repository, as GitHub names them (legacy `permission` folds maintain into write and triage into read). */
export const REPOSITORY_ROLES = ['admin', 'maintain', 'write', 'triage', 'read', 'none'] as const;
export type RepositoryRole = (typeof REPOSITORY_ROLES)[number];

export const isRepositoryRole = (value: unknown): value is RepositoryRole => (REPOSITORY_ROLES as readonly unknown[]).includes(value);

export interface TokenActor {
  kind: 'token';
  orgId: string;
  tokenId: string;
  /** The token's name, as the audit trail shows it. */
  name: string;
  role: Role;
  /** A personal token's person, by name; null for the organisation's tokens. */
  owner: string | null;
}

/**
 * An API key of the v2 API: it holds merge-queue permissions instead of a role, reads everything
 * of its organisation and changes only what its permissions allow (permissions.ts).
 */
export interface ApiKeyActor {
  kind: 'api_key';
  orgId: string;
  keyId: string;
  /** The key's name, as the audit trail shows it. */
  name: string;
  permissions: readonly MergeQueuePermission[];
}

/** How a person signed in: an OpenID Connect provider, or GitHub. */
export type SignInProvider = 'oidc' | 'github';

export interface PersonActor {
  kind: 'person';
  orgId: string;
  /** Stable across sign-ins: the provider and the person's subject there. */
  personId: string;
  /** The name the audit trail and histories show, e.g. `Jane Doe <jane@acme.com>`. */
  name: string;
  provider: SignInProvider;
  /** The role of this request: the provider's for the organisation, or (GitHub) the person's permission on the repository it names. */
  role: Role;
  /** Signed in with GitHub: the login whose permission on each repository is their role there; null otherwise. */
  githubLogin: string | null;
}

export interface ForgeUserActor {
  kind: 'forge_user';
  /** The organisation that owns the repository the person acted on. */
  orgId: string;
  login: string;
  repositoryRole: RepositoryRole;
  /** How they asked, e.g. `comment 1234` or `label merge-me labeled`. */
  via: string;
}

export interface OperatorActor {
  kind: 'operator';
  orgId: string;
  /** The tool, e.g. `npm run token`. */
  name: string;
}

export type Actor = TokenActor | ApiKeyActor | PersonActor | ForgeUserActor | OperatorActor;

/** How an actor is named in a pull request's history and in replies. */
export function describeActor(actor: Actor): string {
  switch (actor.kind) {
    case 'token':
      return actor.owner ? `token ${actor.name} of ${actor.owner}` : `token ${actor.name}`;
    case 'api_key':
      return `API key ${actor.name}`;
    case 'person':
      return actor.name;
    case 'forge_user':
      return `@${actor.login} (${actor.via})`;
    case 'operator':
      return actor.name;
  }
}
