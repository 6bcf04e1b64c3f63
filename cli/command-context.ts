// What every command reads from its options and the environment: where the service is, the
// token (--token, OPENMQ_TOKEN, else what `openmq login` stored for that URL), --json, and the
// queue (`--repo host/owner/name --branch main`), and which API the commands that exist on both
// use (--api, OPENMQ_API: v2 by default).
import type { Command } from 'commander';
import { ApiClient, plainHttpWarning } from './api-client.js';
import { CliError, EXIT } from './cli-error.js';
import { printer, type Printer } from './output.js';
import { readCredential } from './credentials.js';
import { V2Api } from './v2-api.js';

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
  repo?: string;
  branch?: string;
  org?: string;
  api?: string;
}

export const API_VERSIONS = ['v1', 'v2'] as const;

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

export interface CommandContext {
  api: ApiClient;
  /** The v2 API, when --api (OPENMQ_API) chose it for the commands that exist on both; null: v1. */
  v2: V2Api | null;
  out: Printer;
  json: boolean;
  /** The queue named by --repo and --branch (usage error when missing). */
  queue(): { repo: RepoRef; targetBranch: string };
  repo(): RepoRef;
  /** The organisation slug of the flaky-tests API: --org, OPENMQ_ORG, else the token's own (getTokenInfo). */
  org(): Promise<string>;
}

const usage = (message: string) => new CliError(EXIT.usage, message);

export function parseRepo(value: string): RepoRef {
  const parts = value.split('/').filter(Boolean);
  if (parts.length < 3) throw usage(`--repo must be host/owner/name (e.g. github.com/acme/app), got "${value}"`);
  return { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts.at(-1)! };
}

export function contextOf(command: Command): CommandContext {
  const opts = command.optsWithGlobals<GlobalOptions>();
  const url = opts.url ?? process.env.OPENMQ_URL;
  if (!url) throw usage('the service URL is required: --url or OPENMQ_URL (e.g. http://localhost:8080)');
  const token = opts.token ?? process.env.OPENMQ_TOKEN ?? readCredential(url)?.token;
  if (!token) {
    throw usage('an API token is required: `openmq login`, or OPENMQ_TOKEN (or --token, which other users of this machine can read in the process list)');
  }
  const warning = plainHttpWarning(url);
  if (warning) process.stderr.write(`openmq: ${warning}\n`);
  const api = new ApiClient(url, token);
  const version = opts.api ?? process.env.OPENMQ_API ?? 'v2';
  if (!(API_VERSIONS as readonly string[]).includes(version)) throw usage(`--api (OPENMQ_API) is v1 or v2, got "${version}"`);
  const givenOrg = opts.org ?? process.env.OPENMQ_ORG;
  let tokenOrg: Promise<string> | null = null;
  const repo = () => {
    const value = opts.repo ?? process.env.OPENMQ_REPO;
    if (!value) throw usage('the repository is required: --repo host/owner/name (or OPENMQ_REPO)');
    return parseRepo(value);
  };
  return {
    api,
    v2: version === 'v2' ? new V2Api(url, token) : null,
    out: printer(opts.json ?? false),
    json: opts.json ?? false,
    repo,
    queue: () => ({ repo: repo(), targetBranch: opts.branch ?? process.env.OPENMQ_BRANCH ?? 'main' }),
    org: () => {
      if (givenOrg) return Promise.resolve(givenOrg);
      tokenOrg ??= api.call('getTokenInfo', {}).then((info) => info.organization.slug);
      return tokenOrg;
    },
  };
}

/** A pull request number argument. */
export function prNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw usage(`a pull request number is a whole number, got "${value}"`);
  return Number(value);
}
