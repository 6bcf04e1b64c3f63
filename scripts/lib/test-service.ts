// Starts the service for a test: real HTTP on an ephemeral port, the embedded database in
// memory (with MONGO_URL set: a MongoDB database of its own, dropped on close), the real Redis that `npm test` provides (unique BullMQ prefix per service), and a
// temporary git root. Returns a small client that checks every response against the OpenAPI
// document when asked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { loadConfig } from '../../shared/composition/config.js';
import { createLogger } from '../../shared/platform/logging.js';
import { openThrowawayDatabase, type ThrowawayDatabase } from './throwaway-database.js';
import { openService, type Service } from '../../shared/composition/service.js';
import { bootstrapOrgAndToken } from '../../shared/platform/accounts/bootstrap-token.js';
import { generateToken } from '../../shared/platform/accounts/token-repository.js';
import { startHttpServer } from '../../api/server.js';
import type { Database } from '../../shared/platform/database/collection.js';
import type { DestinationStream } from 'pino';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestService {
  url: string;
  token: string;
  orgId: string;
  gitRoot: string;
  dataDir: string;
  /** The service as its entry points get it (its modules, database, job producer…). */
  ctx: Service;
  /** POST /v1<path> with a JSON body and the service token (override with opts.token). */
  post<T = unknown>(path: string, body: unknown, opts?: { token?: string | null; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  /** Any request to the service (path includes /v1 when wanted). */
  raw(method: string, path: string, init?: { body?: string | Buffer; headers?: Record<string, string> }): Promise<ApiResponse>;
  /** Creates another organisation with its own token. */
  addOrg(slug: string): Promise<{ orgId: string; token: string }>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** Share a database between restarts of the service; default a throwaway one. */
  database?: Database;
  gitRoot?: string;
  startWorkers?: boolean;
  /** Where the service's log lines go, at level info (default: LOG_LEVEL, nowhere). */
  logSink?: DestinationStream;
}

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) throw new Error('REDIS_URL is not set: run the tests with `npm test`, which starts redis-server');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-test-'));
  const gitRoot = opts.gitRoot ?? path.join(dataDir, 'git');
  const config = loadConfig({
    REDIS_URL: redisUrl,
    DATA_DIR: dataDir,
    LOCAL_GIT_ROOT: gitRoot,
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BULLMQ_PREFIX: `{t-${randomUUID().slice(0, 8)}}`,
    OPERATOR_PORT: '0',
    ...(opts.env ?? {}),
  });
  let database = opts.database;
  let throwaway: ThrowawayDatabase | null = null;
  if (!database) {
    throwaway = await openThrowawayDatabase(process.env.MONGO_URL);
    database = throwaway.db;
  }
  const logger = opts.logSink ? createLogger('info', 'test', opts.logSink) : createLogger(config.logLevel, 'test');
  const ctx = await openService(config, { logger, database });
  const token = generateToken();
  const { orgId } = await bootstrapOrgAndToken(ctx.accounts.store, { orgSlug: config.orgSlug, apiToken: token, generateIfNone: false });
  if (opts.startWorkers) {
    const { startWorkers } = await import('../../workers/main.js');
    await startWorkers(ctx);
  }
  const server: http.Server = await startHttpServer(ctx);
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const raw = async (method: string, p: string, init: { body?: string | Buffer; headers?: Record<string, string> } = {}) => {
    const res = await fetch(`${url}${p}`, { method, headers: init.headers ?? {}, body: init.body ?? null });
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text.length > 0) body = JSON.parse(text);
    return { status: res.status, body, headers: res.headers };
  };

  return {
    url,
    token,
    orgId,
    gitRoot,
    dataDir,
    ctx,
    raw,
    post: async <T>(p: string, body: unknown, o: { token?: string | null; headers?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(o.headers ?? {}) };
      const tok = o.token === undefined ? token : o.token;
      if (tok !== null) headers['x-api-token'] = tok;
      return (await raw('POST', `/v1${p}`, { body: JSON.stringify(body), headers })) as ApiResponse<T>;
    },
    addOrg: async (slug: string) => {
      const t = generateToken();
      const res = await bootstrapOrgAndToken(ctx.accounts.store, { orgSlug: slug, apiToken: t, generateIfNone: false });
      return { orgId: res.orgId, token: t };
    },
    close: async () => {
      await ctx.shutdown.run();
      await throwaway?.discard();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
