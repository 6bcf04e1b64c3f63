// What the v2 API addresses by id: repositories and pull requests (queues, entries and runs keep
// their own ids). Ids come from domain/resource-ids.ts and are remembered when handed out
// (store/resource-id-repository.ts); a pull request is read from the forge, with its entries in
// the organisation's queues of its repository.
import type { Entry, Queue } from '../domain/model.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import { notFound } from '../../platform/errors.js';
import { pullRequestIdOf, repositoryIdOf } from '../domain/resource-ids.js';
import type { MergeQueueStore } from '../store/store.js';
import type { GitProvider, ProviderRegistry, PullRequestInfo } from './provider.js';

export interface RepositoryResource {
  id: string;
  repo: RepoRef;
  /** When this service first handed out its id. */
  createdAt: Date;
  /** The forge serving it: `github`, or `local` (a bare repository on the server's disk). */
  providerKind: string;
}

export interface PullRequestResource {
  id: string;
  repositoryId: string;
  repo: RepoRef;
  number: number;
  /** When this service first handed out its id. */
  createdAt: Date;
  /** As the forge sees it now. */
  info: PullRequestInfo;
  /** Its entries in the organisation's queues of its repository, newest first. */
  entries: Entry[];
  /** The queues those entries belong to. */
  queues: ReadonlyMap<string, Queue>;
}

const PULL_REQUEST = 'no pull request with this id in this organisation';

/** `https://host/owner/name[.git]`, as a forge shows a repository; null for anything else. */
export function repoOfProviderUrl(text: string): RepoRef | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const parts = url.pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  if (parts.length !== 2) return null;
  const [owner, raw] = parts as [string, string];
  const name = raw.endsWith('.git') ? raw.slice(0, -4) : raw;
  if (!name) return null;
  return { host: url.host.toLowerCase(), owner, name };
}

export class ResourceService {
  constructor(private readonly deps: { store: Pick<MergeQueueStore, 'queues' | 'entries' | 'resourceIds'>; providers: ProviderRegistry }) {}

  /** The id of a repository, remembered. */
  async rememberRepository(orgId: string, repo: RepoRef): Promise<string> {
    const id = repositoryIdOf(orgId, repo);
    await this.deps.store.resourceIds.remember([{ id, kind: 'repository', orgId, repo }]);
    return id;
  }

  /** The ids of pull requests of a repository, remembered (with the repository's). */
  async rememberPullRequests(orgId: string, repo: RepoRef, numbers: readonly number[]): Promise<Map<number, string>> {
    const ids = new Map([...new Set(numbers)].map((n) => [n, pullRequestIdOf(orgId, repo, n)]));
    await this.deps.store.resourceIds.remember([
      { id: repositoryIdOf(orgId, repo), kind: 'repository', orgId, repo },
      ...[...ids].map(([number, id]) => ({ id, kind: 'pull_request' as const, orgId, repo, number })),
    ]);
    return ids;
  }

  async repository(orgId: string, id: string): Promise<RepositoryResource> {
    const ref = await this.deps.store.resourceIds.find(orgId, id);
    if (!ref || ref.kind !== 'repository') throw notFound('repository_not_found', 'no repository with this id in this organisation');
    const provider = await this.deps.providers.providerFor(ref.repo);
    if (!provider) throw notFound('repository_not_found', 'the repository with this id no longer exists on its forge');
    return { id, repo: ref.repo, createdAt: ref.createdAt, providerKind: provider.kind };
  }

  /** A repository by its URL on its forge; 404 provider_url_not_found for a URL that names none (or cannot be parsed). */
  async repositoryByUrl(orgId: string, url: string): Promise<RepositoryResource> {
    const repo = repoOfProviderUrl(url);
    const provider = repo ? await this.deps.providers.providerFor(repo) : null;
    if (!repo || !provider) throw notFound('provider_url_not_found', 'no repository is known at this URL');
    const id = await this.rememberRepository(orgId, repo);
    const ref = await this.deps.store.resourceIds.find(orgId, id);
    return { id, repo, createdAt: ref?.createdAt ?? new Date(), providerKind: provider.kind };
  }

  async pullRequest(orgId: string, id: string): Promise<PullRequestResource> {
    const ref = await this.deps.store.resourceIds.find(orgId, id);
    if (!ref || ref.kind !== 'pull_request') throw notFound('pull_request_not_found', PULL_REQUEST);
    const provider = await this.providerOf(ref.repo);
    const info = await provider.getPullRequest(ref.repo, ref.number);
    if (!info) throw notFound('pull_request_not_found', `pull request #${ref.number} no longer exists on its forge`);
    const [resource] = await this.resourcesOf(orgId, ref.repo, [info]);
    return resource as PullRequestResource;
  }

  /** Pull requests of a repository by number, ascending; numbers the forge does not know are left out. */
  async pullRequestsByNumber(orgId: string, repositoryId: string, numbers: readonly number[]): Promise<PullRequestResource[]> {
    const { repo } = await this.repository(orgId, repositoryId);
    const provider = await this.providerOf(repo);
    const found = await provider.getPullRequests(
      repo,
      [...new Set(numbers)].sort((a, b) => a - b),
    );
    const infos = [...found.values()].filter((pr): pr is PullRequestInfo => pr !== null);
    return this.handOut(orgId, repo, infos);
  }

  /** The open pull requests of a repository from a head branch (into `baseBranch`, when given), by number. */
  async pullRequestsByBranch(orgId: string, repositoryId: string, branch: string, baseBranch: string | undefined): Promise<PullRequestResource[]> {
    const { repo } = await this.repository(orgId, repositoryId);
    const provider = await this.providerOf(repo);
    const open = await provider.listOpenPullRequests(repo);
    const matching = open
      .filter((pr) => pr.headBranch === branch && (baseBranch === undefined || pr.baseBranch === baseBranch))
      .sort((a, b) => a.number - b.number);
    return this.handOut(orgId, repo, matching);
  }

  /** Pull requests found by coordinates: their ids remembered, then read as resources. */
  private async handOut(orgId: string, repo: RepoRef, infos: readonly PullRequestInfo[]): Promise<PullRequestResource[]> {
    await this.rememberPullRequests(
      orgId,
      repo,
      infos.map((pr) => pr.number),
    );
    return this.resourcesOf(orgId, repo, infos);
  }

  /** Pull requests whose ids were handed out, as resources: one read each of their ids, their queues and their entries. */
  private async resourcesOf(orgId: string, repo: RepoRef, infos: readonly PullRequestInfo[]): Promise<PullRequestResource[]> {
    const ids = new Map(infos.map((pr) => [pr.number, pullRequestIdOf(orgId, repo, pr.number)]));
    const [refs, queues] = await Promise.all([this.deps.store.resourceIds.findMany(orgId, [...ids.values()]), this.queuesOf(orgId, repo)]);
    const entries = await this.deps.store.entries.listByPrs(
      [...queues.keys()],
      infos.map((pr) => pr.number),
    );
    return infos.map((info) => {
      const id = ids.get(info.number) as string;
      return {
        id,
        repositoryId: repositoryIdOf(orgId, repo),
        repo,
        number: info.number,
        createdAt: refs.get(id)?.createdAt ?? new Date(),
        info,
        entries: entries.filter((e) => e.prNumber === info.number),
        queues,
      };
    });
  }

  /** The organisation's queues of a repository, by id. */
  private async queuesOf(orgId: string, repo: RepoRef): Promise<Map<string, Queue>> {
    const key = repoKey(repo);
    return new Map((await this.deps.store.queues.listByOrg(orgId)).filter((q) => repoKey(q.repo) === key).map((q) => [q.id, q]));
  }

  private async providerOf(repo: RepoRef): Promise<GitProvider> {
    const provider = await this.deps.providers.providerFor(repo);
    if (!provider) throw notFound('repository_not_found', `repository ${repo.host}/${repo.owner}/${repo.name} was not found`);
    return provider;
  }
}
