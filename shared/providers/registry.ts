// Chooses the provider that serves a repository: a repository whose host is GITHUB_HOST is
// GitHub's (when GitHub is configured), any other is a local bare repository on disk.
import type { RepoRef } from '../platform/repo-ref.js';
import type { GitProvider, ProviderRegistry } from '../merge-queue/services/provider.js';
import { LocalGitProvider } from './local/local-git-provider.js';
import type { GitIdentity } from './local/git-runner.js';
import type { GitHubProvider } from './github/github-provider.js';

export interface ProviderRegistryOptions {
  /** LOCAL_GIT_ROOT: repositories live at `<root>/<host>/<owner>/<name>.git`. */
  localGitRoot: string;
  /** Identity of commits the service writes (defaults to openmq <openmq@localhost>). */
  committer?: GitIdentity;
  /** The GitHub provider, when GitHub is configured; without it every repository is local. */
  github?: GitHubProvider | null;
}

export function createProviderRegistry(opts: ProviderRegistryOptions): ProviderRegistry {
  const local = new LocalGitProvider({ root: opts.localGitRoot, ...(opts.committer ? { committer: opts.committer } : {}) });
  const github = opts.github ?? null;
  return {
    async providerFor(repo: RepoRef): Promise<GitProvider | null> {
      const provider = github?.serves(repo) ? github : local;
      return (await provider.repositoryExists(repo)) ? provider : null;
    },
  };
}

/** A registry over an explicit list of providers, asked in order (also for tests with fakes). */
export function registryOf(providers: readonly GitProvider[]): ProviderRegistry {
  return {
    async providerFor(repo: RepoRef): Promise<GitProvider | null> {
      for (const provider of providers) {
        if (await provider.repositoryExists(repo)) return provider;
      }
      return null;
    },
  };
}
