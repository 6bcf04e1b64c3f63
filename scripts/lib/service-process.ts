// The service as a process of its own, the way an operator starts it — `npm start` (scripts/start.mjs,
// which supervises a private redis-server), or one entry point from its sources through tsx with
// REDIS_URL (and for `api` and `worker`, MONGO_URL) given — with a data directory, a token and
// nothing of this process's environment; the URL it prints; and a client of its v1 API. Used by
// the tests and scripts that stop, kill, restart or upgrade the real thing.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode, type CapturedProcess } from './captured-process.js';
import { waitFor } from './wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY_POINTS = { 'all-in-one': 'scripts/all-in-one.ts', api: 'api/server.ts', worker: 'workers/main.ts' } as const;

export interface ServiceProcessOptions {
  dataDir: string;
  /** API_TOKEN: created at start when the store has no token yet. */
  token: string;
  /** 'npm-start' (the default), or an entry point of its own: 'all-in-one' needs REDIS_URL in env, 'api' and 'worker' MONGO_URL too. */
  entry?: 'npm-start' | keyof typeof ENTRY_POINTS;
  /** The checkout whose service runs (default this one; another release's for upgrade fixtures). */
  root?: string;
  /** Node's own flags (a profiler, say), before the entry point. */
  nodeArgs?: string[];
  /** More variables, or replacements for the defaults (PORT 0, OPERATOR_PORT 0, LOG_LEVEL warn). */
  env?: Record<string, string>;
}

export function startServiceProcess(opts: ServiceProcessOptions): CapturedProcess {
  const root = opts.root ?? ROOT;
  const entry =
    opts.entry === undefined || opts.entry === 'npm-start'
      ? [path.join(root, 'scripts/start.mjs')]
      : ['--import', 'tsx', path.join(root, ENTRY_POINTS[opts.entry])];
  return spawnNode([...(opts.nodeArgs ?? []), ...entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: opts.dataDir,
      PORT: '0',
      OPERATOR_PORT: '0',
      API_TOKEN: opts.token,
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
  });
}

/** The base URL (no /v1) the service prints once it listens; rejects when it exits first. */
export async function printedUrl(service: CapturedProcess, timeoutMs = 120_000): Promise<string> {
  let exited: number | null = null;
  void service.exited.then((code) => (exited = code));
  return waitFor(
    'the service to print its URL',
    async () => {
      const url = /URL:\s+(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(service.output())?.[1];
      if (!url && exited !== null) throw new Error(`the service exited with ${exited} before listening:\n${service.output()}`);
      return url;
    },
    { timeoutMs },
  );
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** POST /v1/<operation> with a JSON body and the token; the answer's status and JSON body. */
export function apiClient(base: string, token: string): (operation: string, body: unknown, asToken?: string) => Promise<ApiAnswer> {
  return async (operation, body, asToken = token) => {
    const res = await fetch(`${base}/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': asToken },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
}
