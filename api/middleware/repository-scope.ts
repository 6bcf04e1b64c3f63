// A person signed in with GitHub holds a role per repository, read at each request
// (RepositoryAccess), and so does a personal token of theirs, bounded by its own role. This step,
// run after the body is parsed and before the operation's role is checked, gives such a request
// its actor: with the role on the repository the request names, a clear 403 when there is none,
// and for what names no repository but is theirs to use (who am I, the list of queues, their own
// tokens) the read role, the list narrowed to what they may read. Everything else concerns the
// whole organisation, which GitHub grants nobody here: 403.
import type { Context, Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import type { Actor } from '../../shared/platform/accounts/actor.js';
import { roleAllows, type Role } from '../../shared/platform/accounts/roles.js';
import type { RepositoryAccess } from '../../shared/sign-in/services/repository-access.js';

/** Operations that name no repository and that a caller with roles per repository may use, as `read`. */
const ORGANISATION_READS = new Set(['getTokenInfo', 'listQueues', 'createPersonalToken', 'listPersonalTokens', 'revokePersonalToken']);

/** A caller whose role depends on the repository: a GitHub sign-in, or a personal token of one. */
export interface PerRepositoryCaller {
  githubLogin: string;
  /** A personal token's own role, which bounds the permission; null for the person themselves. */
  cap: Role | null;
  /** The actor of the request, once its role is known. */
  actorWith(role: Role): Actor;
}

interface ScopeState {
  /** Set by authenticate for a caller whose role depends on the repository. */
  perRepository?: PerRepositoryCaller;
  /** Set here for ORGANISATION_READS: whether the caller may read a repository. */
  readable?: (repo: RepoRef) => Promise<boolean>;
}

/** The lower of a permission's role and a token's cap. */
const lower = (a: Role, cap: Role | null): Role => (cap !== null && roleAllows(a, cap) ? cap : a);

const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The repository a request names: `repo` {host, owner, name} in its JSON body, or `repo` (owner/name) and `repoHost` in its query. */
export function repositoryOfRequest(ctx: Pick<Context, 'request' | 'query'>): RepoRef | null {
  const body = ctx.request.body as { repo?: unknown } | undefined;
  const repo = body?.repo as { host?: unknown; owner?: unknown; name?: unknown } | undefined;
  if (repo && text(repo.host) && text(repo.owner) && text(repo.name)) return { host: repo.host, owner: repo.owner, name: repo.name };
  const slug = ctx.query.repo;
  if (text(slug) && slug.includes('/')) {
    const cut = slug.lastIndexOf('/');
    const host = ctx.query.repoHost;
    return { host: text(host) ? host : 'github.com', owner: slug.slice(0, cut), name: slug.slice(cut + 1) };
  }
  return null;
}

/** Whether the request's caller may read a repository (always, for a caller whose role does not depend on it). */
export function readableBy(state: ScopeState): (repo: RepoRef) => Promise<boolean> {
  return state.readable ?? (() => Promise.resolve(true));
}

export function repositoryScope(access: RepositoryAccess | null): (operationId: string) => Middleware {
  return (operationId) => async (ctx, next) => {
    const state = ctx.state as ScopeState;
    const caller = state.perRepository;
    if (!caller) return next();
    const login = caller.githubLogin;
    if (!access) throw new AppError('forbidden', 'github_not_configured', 'this sign-in grants roles per GitHub repository, and GitHub is not configured');
    const repo = repositoryOfRequest(ctx);
    if (repo) {
      const role = await access.roleOn(login, repo);
      if (!role) {
        throw new AppError('forbidden', 'no_repository_access', `you (@${login}) have no access to ${repo.host}/${repo.owner}/${repo.name} on GitHub`);
      }
      ctx.state.actor = caller.actorWith(lower(role, caller.cap));
      return next();
    }
    if (!ORGANISATION_READS.has(operationId)) {
      throw new AppError(
        'forbidden',
        'organisation_role_required',
        `${operationId} concerns the whole organisation; signed in with GitHub you hold roles per repository: use an API token, or sign in with the identity provider`,
      );
    }
    state.readable = async (r) => (await access.roleOn(login, r)) !== null;
    ctx.state.actor = caller.actorWith('read');
    return next();
  };
}
