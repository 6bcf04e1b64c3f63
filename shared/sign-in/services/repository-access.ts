// What a person signed in with GitHub may do on a repository: their permission there, as GitHub
// reports it to the service's own credentials (the App's installation, or GITHUB_TOKEN), mapped to
// an API role as for `/trunk` comments (policy.ts). Answers are kept GITHUB_PERMISSION_CACHE_SECONDS
// (60 by default) so a dashboard's polling does not ask GitHub on every request, and never longer:
// a permission taken away stops working within that time. Repositories that GitHub does not serve grant nothing.
import { LRUCache } from 'lru-cache';
import type { RepositoryRole } from '../../platform/accounts/actor.js';
import { roleOfRepositoryRole } from '../../platform/accounts/policy.js';
import type { Role } from '../../platform/accounts/roles.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

export type PermissionOf = (repo: RepoRef, login: string) => Promise<RepositoryRole>;

export class RepositoryAccess {
  private readonly cache: LRUCache<string, { role: Role | null }>;

  constructor(
    /** GITHUB_HOST: the host whose repositories GitHub serves. */
    private readonly host: string,
    private readonly permissionOf: PermissionOf,
    ttlMs: number,
  ) {
    this.cache = new LRUCache({ max: 10_000, ttl: ttlMs });
  }

  /** The API role `login` holds on `repo`; null: none. */
  async roleOn(login: string, repo: RepoRef): Promise<Role | null> {
    if (repo.host.toLowerCase() !== this.host) return null;
    const key = `${login.toLowerCase()} ${repoKey(repo).toLowerCase()}`;
    const known = this.cache.get(key);
    if (known) return known.role;
    const role = roleOfRepositoryRole(await this.permissionOf(repo, login));
    this.cache.set(key, { role });
    return role;
  }
}
