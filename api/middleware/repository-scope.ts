// A person signed in with GitHub holds a role per repository, read at each request
// (RepositoryAccess). This step, run after the body is parsed and before the operation's role is
// checked, gives such a request its actor: with the person's role on the repository the request
// names, a clear 403 when they have none there, and for the two reads that name no repository
// (who am I, the list of queues) the read role with the list narrowed to what they may read.
// Everything else concerns the whole organisation, which GitHub grants nobody here: 403.
import type { Context, Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';
import type { Session } from '../../shared/sign-in/store/session-repository.js';
import { personActorOf } from '../../shared/sign-in/services/session-service.js';
import type { RepositoryAccess } from '../../shared/sign-in/services/repository-access.js';

/** Reads that name no repository and that a person with roles per repository may make. */
const ORGANISATION_READS = new Set(['getTokenInfo', 'listQueues']);

interface ScopeState {
  /** Set by authenticate for a session whose role depends on the repository. */
  perRepositorySession?: Session;
  /** Set here for ORGANISATION_READS: whether the person may read a repository. */
  readable?: (repo: RepoRef) => Promise<boolean>;
}

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

/** Whether the request's person may read a repository (always, for anyone not signed in with GitHub). */
export function readableBy(state: ScopeState): (repo: RepoRef) => Promise<boolean> {
  return state.readable ?? (() => Promise.resolve(true));
}

export function repositoryScope(access: RepositoryAccess | null): (operationId: string) => Middleware {
  return (operationId) => async (ctx, next) => {
    const state = ctx.state as ScopeState;
    const session = state.perRepositorySession;
    if (!session) return next();
    const login = session.person.login;
    if (!access || !login)
      throw new AppError('forbidden', 'github_not_configured', 'this sign-in grants roles per GitHub repository, and GitHub is not configured');
    const repo = repositoryOfRequest(ctx);
    if (repo) {
      const role = await access.roleOn(login, repo);
      if (!role) {
        throw new AppError('forbidden', 'no_repository_access', `you (@${login}) have no access to ${repo.host}/${repo.owner}/${repo.name} on GitHub`);
      }
      ctx.state.actor = personActorOf(session, role);
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
    ctx.state.actor = personActorOf(session, 'read');
    return next();
  };
}
