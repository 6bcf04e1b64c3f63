// The GitHub adapter as the composition root builds it: the forge provider the merge queue
// drives, and the API the GitHub integration calls, over one set of App clients.
import type { Logger } from '../../platform/logging.js';
import { GitHubApi } from './github-api.js';
import { GitHubClients } from './github-client.js';
import type { GitHubConfig } from './github-config.js';
import { GitHubProvider } from './github-provider.js';

export interface GitHubAdapter {
  provider: GitHubProvider;
  api: GitHubApi;
}

export function createGitHubAdapter(opts: { config: GitHubConfig; dataDir: string; logger: Logger }): GitHubAdapter {
  const clients = new GitHubClients(opts.config, opts.logger);
  return { provider: new GitHubProvider({ ...opts, clients }), api: new GitHubApi(opts.config, clients) };
}
