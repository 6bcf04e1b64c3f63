// Authenticated Octokit clients per repository. With a GitHub App the installation that covers a
// repository is looked up once (with the App's JWT) and its client is kept: @octokit/auth-app
// caches the installation token and renews it before it expires. With a plain token one client
// serves every repository. Every client throttles itself (primary and secondary rate limits,
// honouring `retry-after`) and retries 5xx answers with backoff; writes that must not run twice
// opt out of the automatic retry (see github-provider.ts).
import { Octokit } from '@octokit/rest';
import { createAppAuth } from '@octokit/auth-app';
import { throttling } from '@octokit/plugin-throttling';
import { retry } from '@octokit/plugin-retry';
import type { GitHubConfig } from './github-config.js';
import type { Logger } from '../../platform/logging.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

export const GitHubOctokit = Octokit.plugin(throttling, retry);
export type GitHubOctokitClient = InstanceType<typeof GitHubOctokit>;

/** Tries of a request after GitHub said "rate limited" (primary or secondary), waiting as told. */
const RATE_LIMIT_RETRIES = 3;

export interface RepositoryAccess {
  octokit: GitHubOctokitClient;
  /** A token that works as the password of `x-access-token` for git over HTTPS, valid for a while. */
  gitToken(): Promise<string>;
}

export class GitHubClients {
  private readonly installations = new Map<string, number>();
  private readonly byInstallation = new Map<number, RepositoryAccess>();
  private appClient: GitHubOctokitClient | null = null;
  private tokenAccess: RepositoryAccess | null = null;

  constructor(
    private readonly config: GitHubConfig,
    private readonly logger: Logger,
  ) {}

  private create(auth: Record<string, unknown> | string): GitHubOctokitClient {
    const logger = this.logger;
    return new GitHubOctokit({
      baseUrl: this.config.apiUrl,
      userAgent: 'openmq',
      ...(typeof auth === 'string' ? { auth } : { authStrategy: createAppAuth, auth }),
      log: { debug: () => undefined, info: () => undefined, warn: (m: string) => logger.warn(m), error: (m: string) => logger.error(m) },
      throttle: {
        onRateLimit: (retryAfter: number, options: { method: string; url: string }, _o: unknown, retryCount: number) => {
          logger.warn({ method: options.method, url: options.url, retryAfter, retryCount }, 'GitHub rate limit reached');
          return retryCount < RATE_LIMIT_RETRIES;
        },
        onSecondaryRateLimit: (retryAfter: number, options: { method: string; url: string }, _o: unknown, retryCount: number) => {
          logger.warn({ method: options.method, url: options.url, retryAfter, retryCount }, 'GitHub secondary rate limit reached');
          return retryCount < RATE_LIMIT_RETRIES;
        },
      },
    });
  }

  /** The client and git credentials for a repository; null when no installation of the App covers it. */
  async forRepo(repo: RepoRef): Promise<RepositoryAccess | null> {
    const auth = this.config.auth;
    if (auth.kind === 'token') {
      this.tokenAccess ??= { octokit: this.create(auth.token), gitToken: async () => auth.token };
      return this.tokenAccess;
    }
    const installationId = await this.installationOf(repo);
    if (installationId === null) return null;
    let access = this.byInstallation.get(installationId);
    if (!access) {
      const octokit = this.create({ appId: auth.appId, privateKey: auth.privateKey, installationId });
      access = {
        octokit,
        gitToken: async () => ((await octokit.auth({ type: 'installation' })) as { token: string }).token,
      };
      this.byInstallation.set(installationId, access);
    }
    return access;
  }

  /** The client and git credentials for a repository the App must cover (an error when none of its installations does). */
  async requireRepo(repo: RepoRef): Promise<RepositoryAccess> {
    const access = await this.forRepo(repo);
    if (!access) throw new Error(`no installation of the GitHub App covers ${repo.owner}/${repo.name}`);
    return access;
  }

  /** The installation of the App on the repository's owner (GET /repos/{owner}/{repo}/installation, with the App's JWT). */
  async installationOf(repo: RepoRef): Promise<number | null> {
    const auth = this.config.auth;
    if (auth.kind !== 'app') return null;
    const key = repoKey(repo);
    const known = this.installations.get(key);
    if (known !== undefined) return known;
    this.appClient ??= this.create({ appId: auth.appId, privateKey: auth.privateKey });
    try {
      const { data } = await this.appClient.rest.apps.getRepoInstallation({ owner: repo.owner, repo: repo.name });
      this.installations.set(key, data.id);
      return data.id;
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  /** Forgets what an installation event changed (removed installations or repositories). */
  forgetInstallation(installationId: number): void {
    this.byInstallation.delete(installationId);
    for (const [key, id] of this.installations) if (id === installationId) this.installations.delete(key);
  }
}

/** The HTTP status of an Octokit RequestError, or null for anything else. */
/** Whether GitHub serves a repository at all (its host is GITHUB_HOST). */
export const servedByGitHub = (config: Pick<GitHubConfig, 'host'>, repo: RepoRef): boolean => repo.host.toLowerCase() === config.host;

export function statusOf(err: unknown): number | null {
  if (typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number') return err.status;
  return null;
}

/** GitHub's own words in an error answer, for logs and reasons. */
export function messageOf(err: unknown): string {
  const data = typeof err === 'object' && err !== null && 'response' in err ? (err.response as { data?: unknown } | undefined)?.data : undefined;
  if (typeof data === 'object' && data !== null && 'message' in data && typeof data.message === 'string') return data.message;
  return err instanceof Error ? err.message : String(err);
}
