// Chooses the provider that serves a repository. Providers are asked in order and the first
// that has the repository wins: today only local bare repositories; a GitHub provider is added
// to the list (typically after local, so a local mirror can shadow a hosted repository in tests).
import type { RepoRef } from '../repo-ref.js';
import type { GitProvider, ProviderRegistry } from './provider.js';
import { LocalGitProvider } from './local/local-git-provider.js';
import type { GitIdentity } from './local/git-runner.js';

export interface ProviderRegistryOptions {
  /** LOCAL_GIT_ROOT: repositories live at `<root>/<host>/<owner>/<name>.git`. */
  localGitRoot: string;
  /** Identity of commits the service writes (defaults to openmq <openmq@localhost>). */
  committer?: GitIdentity;
}

export function createProviderRegistry(opts: ProviderRegistryOptions): ProviderRegistry {
  return registryOf([new LocalGitProvider({ root: opts.localGitRoot, ...(opts.committer ? { committer: opts.committer } : {}) })]);
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
