// Service configuration, read from environment variables and validated once at start-up.
// Every variable is documented in docs/configuration.md; keep the two in step.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { cleanEnv, makeValidator, str, bool, EnvError } from 'envalid';
import { MONITOR_DEFAULTS } from '../flaky-tests/domain/detection/config.js';
import { NOTHING_ALLOWED, parseAllowedDestinations, type AllowedDestinations } from '../platform/events/egress/destination-policy.js';
import type { WebhookSettings } from '../platform/events/events-module.js';

import { LOG_LEVELS, type LogLevel } from '../platform/logging.js';
import type { GitHubAuthConfig, GitHubConfig } from '../providers/github/github-config.js';
import { serviceJobs } from './jobs.js';
import { servedQueues, type ServedQueue } from './worker-queues.js';
import { EMBEDDED_HEAP_GROWING_PERCENT } from './heap-growth.js';
import { signInSettings } from './sign-in-config.js';
import type { SignInSettings } from '../sign-in/sign-in-module.js';

export type { GitHubConfig };

/** Where the embedded database keeps its files (inside DATA_DIR, beside redis/ and git/). */
export function embeddedDbDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'db');
}

export interface Config {
  port: number;
  host: string;
  mongoUrl: string | null;
  redisUrl: string | null;
  dataDir: string;
  apiToken: string | null;
  orgSlug: string;
  logLevel: LogLevel;
  localGitRoot: string;
  /** Prefix of every BullMQ key; braced so a Redis Cluster keeps a queue's keys in one slot. */
  bullPrefix: string;
  /** Seconds between polls of local repositories for pushes, closes and target moves. */
  providerPollSeconds: number;
  /** Seconds between reconciler passes. */
  reconcileSeconds: number;
  /** Port of the operator endpoint (/metrics); 0 disables it. */
  operatorPort: number;
  operatorHost: string;
  /** V8's heap growing factor as a percentage over what lives (heap-growth.ts); 0: V8's own choice. */
  heapGrowingPercent: number;
  /** Seconds allowed for a graceful shutdown before the process exits anyway. */
  shutdownGraceSeconds: number;
  /** Worker threads simulateQueue plays its settings in, side by side; 0: one after another on the event loop. */
  simulationThreads: number;
  /** Seconds a dependency (database, Redis) may stay unreachable before /healthz fails. */
  dependencyLostSeconds: number;
  /** Public base URL used in links the service hands out (upload URLs, PR links). */
  publicUrl: string | null;
  /** Trust X-Forwarded-* headers (behind a reverse proxy). */
  trustProxy: boolean;
  /** Unknown API tokens a client address may present per minute before it is answered 429; 0: no limit. */
  authFailuresPerMinute: number;
  /** The v2 API's rate limits (docs/api-v2.md#rate-limits); 0 turns one off. */
  v2RateLimits: { requestsPerSecond: number; pullRequestReadsPerSecond: number; metricsPerSecond: number };
  /** Flaky tests: days runs, counters and uploads are kept (idle unpinned tests too). */
  flakyRetentionDays: number;
  /** Flaky tests: largest upload request (multipart or CLI bundle), in bytes. */
  flakyMaxUploadBytes: number;
  /** Flaky tests: issue-tracker URL with `{ticket}` for link-ticket-to-test-case; null: none. */
  flakyTicketUrlTemplate: string | null;
  /** Flaky tests: initial infrastructure-failure share of new repositories. */
  flakyInfraFailureThreshold: number;
  /** Flaky tests: validity of upload URLs handed to the hosted CLI, in seconds. */
  flakyUploadUrlTtlSeconds: number;
  /** Flaky tests: how long an upload request waits for its processing before answering 202. */
  flakyUploadWaitSeconds: number;
  /** Flaky tests: period of the flaky-refresh job (statuses that change with time). */
  flakyRefreshSeconds: number;
  /** The GitHub provider; null when neither an App nor a token is configured. */
  github: GitHubConfig | null;
  /** Outbound webhooks (docs/webhooks.md). */
  webhooks: WebhookSettings;
  /** The job queues a worker process serves, with their concurrency (WORKER_QUEUES, …). */
  workerQueues: readonly ServedQueue[];
  /** Dashboard sessions and the identity provider people sign in with (SESSION_*, SIGN_IN_ORG, OIDC_*). */
  signIn: SignInSettings;
  /** How long a personal token lives (PERSONAL_TOKEN_DAYS). */
  personalTokenDays: number;
}

/** A configuration error names the variable and what is wrong; start-up prints it and exits. */
export class ConfigError extends Error {}

const url = makeValidator<string>((input) => {
  try {
    new URL(input);
  } catch {
    throw new EnvError('must be a URL');
  }
  return input;
});

const slug = makeValidator<string>((input) => {
  if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(input)) {
    throw new EnvError('must be 1–64 lowercase letters, digits or dashes, not starting or ending with a dash');
  }
  return input;
});

const token = makeValidator<string>((input) => {
  if (input.length < 16 || input.length > 256 || /\s/.test(input)) {
    throw new EnvError('must be 16–256 characters without white space');
  }
  return input;
});

const ticketTemplate = makeValidator<string>((input) => {
  let ok = input.includes('{ticket}');
  try {
    const u = new URL(input.split('{ticket}').join('X'));
    ok = ok && (u.protocol === 'https:' || u.protocol === 'http:');
  } catch {
    ok = false;
  }
  if (!ok) throw new EnvError('must be an http(s) URL containing {ticket}, e.g. https://acme.atlassian.net/browse/{ticket}');
  return input;
});

const destinations = makeValidator<AllowedDestinations>((input) => {
  try {
    return parseAllowedDestinations(input);
  } catch (err) {
    throw new EnvError(`${err instanceof Error ? err.message : String(err)}; give comma-separated host names, addresses or CIDR ranges`);
  }
});

const fraction = makeValidator<number>((input) => {
  const n = Number(input);
  if (!/^\d*\.?\d+$/.test(input) || !(n > 0 && n <= 1)) throw new EnvError('must be a number greater than 0 and at most 1 (a share, e.g. 0.8)');
  return n;
});

const positiveInt = (min: number, max: number) =>
  makeValidator<number>((input) => {
    if (!/^\d+$/.test(input)) throw new EnvError(`must be a whole number between ${min} and ${max}`);
    const n = Number(input);
    if (n < min || n > max) throw new EnvError(`must be a whole number between ${min} and ${max}`);
    return n;
  });

/**
 * A core for the rest of the process, the others for replays, at most four: more plays side by
 * side than that shortens an advice little (it plays about 32 settings, in two stages).
 */
const defaultSimulationThreads = (): number => Math.min(4, Math.max(1, availableParallelism() - 1));

/**
 * Reads and validates the configuration. Throws ConfigError naming every bad variable.
 * Tests pass their own environment object instead of process.env.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const errors: string[] = [];
  const clean = cleanEnv(
    env,
    {
      PORT: positiveInt(0, 65_535)({ default: 8080 }),
      HOST: str({ default: '127.0.0.1' }),
      MONGO_URL: url({ default: undefined }),
      REDIS_URL: url({ default: undefined }),
      DATA_DIR: str({ default: '.data' }),
      API_TOKEN: token({ default: undefined }),
      ORG_SLUG: slug({ default: 'default' }),
      LOG_LEVEL: str({ choices: [...LOG_LEVELS], default: 'info' }),
      LOCAL_GIT_ROOT: str({ default: undefined }),
      BULLMQ_PREFIX: str({ default: '{openmq}' }),
      PROVIDER_POLL_SECONDS: positiveInt(1, 86_400)({ default: 5 }),
      RECONCILE_SECONDS: positiveInt(1, 3_600)({ default: 30 }),
      OPERATOR_PORT: positiveInt(0, 65_535)({ default: 9464 }),
      OPERATOR_HOST: str({ default: '127.0.0.1' }),
      SHUTDOWN_GRACE_SECONDS: positiveInt(1, 600)({ default: 20 }),
      HEAP_GROWING_PERCENT: positiveInt(0, 400)({ default: undefined }),
      SIMULATION_THREADS: positiveInt(0, 64)({ default: undefined }),
      DEPENDENCY_LOST_SECONDS: positiveInt(1, 86_400)({ default: 60 }),
      PUBLIC_URL: url({ default: undefined }),
      TRUST_PROXY: bool({ default: false }),
      AUTH_FAILURES_PER_MINUTE: positiveInt(0, 1_000_000)({ default: 20 }),
      V2_REQUESTS_PER_SECOND: positiveInt(0, 1_000_000)({ default: 100 }),
      V2_PULL_REQUEST_READS_PER_SECOND: positiveInt(0, 1_000_000)({ default: 5 }),
      V2_METRICS_PER_SECOND: positiveInt(0, 1_000_000)({ default: 5 }),
      FLAKY_RETENTION_DAYS: positiveInt(1, 3_650)({ default: 45 }),
      FLAKY_MAX_UPLOAD_MB: positiveInt(1, 102_400)({ default: 256 }),
      FLAKY_TICKET_URL_TEMPLATE: ticketTemplate({ default: undefined }),
      FLAKY_INFRA_FAILURE_THRESHOLD: fraction({ default: MONITOR_DEFAULTS.infrastructure.threshold }),
      FLAKY_UPLOAD_URL_TTL_SECONDS: positiveInt(60, 86_400)({ default: 3_600 }),
      GITHUB_APP_ID: str({ default: undefined }),
      GITHUB_APP_PRIVATE_KEY: str({ default: undefined }),
      GITHUB_APP_PRIVATE_KEY_FILE: str({ default: undefined }),
      GITHUB_TOKEN: str({ default: undefined }),
      GITHUB_WEBHOOK_SECRET: str({ default: undefined }),
      GITHUB_API_URL: url({ default: 'https://api.github.com' }),
      GITHUB_HOST: str({ default: 'github.com' }),
      GITHUB_GIT_URL: url({ default: undefined }),
      GITHUB_WEBHOOK_POLL_SECONDS: positiveInt(1, 86_400)({ default: undefined }),
      GITHUB_WEBHOOK_QUIET_SECONDS: positiveInt(1, 86_400)({ default: 900 }),
      FLAKY_UPLOAD_WAIT_SECONDS: positiveInt(1, 600)({ default: 30 }),
      FLAKY_REFRESH_SECONDS: positiveInt(1, 3_600)({ default: 60 }),
      WEBHOOK_RETRY_BASE_MS: positiveInt(1, 3_600_000)({ default: 20_000 }),
      WEBHOOK_MAX_ATTEMPTS: positiveInt(1, 50)({ default: 13 }),
      WEBHOOK_DISABLE_AFTER_SECONDS: positiveInt(1, 2_592_000)({ default: 86_400 }),
      WEBHOOK_TIMEOUT_MS: positiveInt(100, 120_000)({ default: 10_000 }),
      WEBHOOK_ALLOWED_DESTINATIONS: destinations({ default: undefined }),
      WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(1, 64)({ default: 4 }),
      WORKER_QUEUES: str({ default: undefined }),
      WORKER_EXCLUDE_QUEUES: str({ default: undefined }),
      WORKER_CONCURRENCY: str({ default: undefined }),
      SIGN_IN_ORG: slug({ default: undefined }),
      SESSION_IDLE_MINUTES: positiveInt(1, 43_200)({ default: 480 }),
      SESSION_MAX_HOURS: positiveInt(1, 720)({ default: 24 }),
      OIDC_ISSUER_URL: url({ default: undefined }),
      OIDC_CLIENT_ID: str({ default: undefined }),
      OIDC_CLIENT_SECRET: str({ default: undefined }),
      OIDC_SCOPES: str({ default: 'openid profile email' }),
      OIDC_ROLE_CLAIM: str({ default: 'groups' }),
      OIDC_ADMIN_VALUES: str({ default: undefined }),
      OIDC_WRITE_VALUES: str({ default: undefined }),
      OIDC_READ_VALUES: str({ default: undefined }),
      OIDC_DISPLAY_NAME: str({ default: 'single sign-on' }),
      PERSONAL_TOKEN_DAYS: positiveInt(1, 365)({ default: 90 }),
      GITHUB_SIGN_IN_CLIENT_ID: str({ default: undefined }),
      GITHUB_SIGN_IN_CLIENT_SECRET: str({ default: undefined }),
      GITHUB_WEB_URL: url({ default: undefined }),
      GITHUB_PERMISSION_CACHE_SECONDS: positiveInt(1, 600)({ default: 60 }),
      GITHUB_ACTIONS_OIDC_ISSUER: url({ default: 'https://token.actions.githubusercontent.com' }),
      GITHUB_ACTIONS_OIDC_AUDIENCE: str({ default: 'openmq' }),
    },
    {
      reporter: ({ errors: found }) => {
        for (const [name, err] of Object.entries(found)) {
          if (err) errors.push(`${name}: ${err.message}`);
        }
      },
    },
  );
  const github = errors.length > 0 ? null : gitHubConfig(clean, errors);
  const intervals = {
    providerPollSeconds: clean.PROVIDER_POLL_SECONDS,
    reconcileSeconds: clean.RECONCILE_SECONDS,
    flakyRefreshSeconds: clean.FLAKY_REFRESH_SECONDS,
  };
  const workerQueues = servedQueues(clean, serviceJobs(intervals), errors);
  // A variable that failed validation cannot be read: the sign-in settings are built only without errors.
  const signIn = errors.length > 0 ? null : signInSettings(clean, github, errors);
  if (errors.length > 0 || !signIn) {
    throw new ConfigError(`invalid configuration — ${errors.join('; ')}`);
  }
  const dataDir = path.resolve(clean.DATA_DIR);
  return {
    port: clean.PORT,
    host: clean.HOST,
    mongoUrl: clean.MONGO_URL ?? null,
    redisUrl: clean.REDIS_URL ?? null,
    dataDir,
    apiToken: clean.API_TOKEN ?? null,
    orgSlug: clean.ORG_SLUG,
    logLevel: clean.LOG_LEVEL as LogLevel,
    localGitRoot: path.resolve(clean.LOCAL_GIT_ROOT ?? path.join(dataDir, 'git')),
    bullPrefix: clean.BULLMQ_PREFIX,
    providerPollSeconds: clean.PROVIDER_POLL_SECONDS,
    reconcileSeconds: clean.RECONCILE_SECONDS,
    operatorPort: clean.OPERATOR_PORT,
    operatorHost: clean.OPERATOR_HOST,
    heapGrowingPercent: clean.HEAP_GROWING_PERCENT ?? (clean.MONGO_URL ? 0 : EMBEDDED_HEAP_GROWING_PERCENT),
    shutdownGraceSeconds: clean.SHUTDOWN_GRACE_SECONDS,
    simulationThreads: clean.SIMULATION_THREADS ?? defaultSimulationThreads(),
    dependencyLostSeconds: clean.DEPENDENCY_LOST_SECONDS,
    publicUrl: clean.PUBLIC_URL ?? null,
    trustProxy: clean.TRUST_PROXY,
    authFailuresPerMinute: clean.AUTH_FAILURES_PER_MINUTE,
    v2RateLimits: {
      requestsPerSecond: clean.V2_REQUESTS_PER_SECOND,
      pullRequestReadsPerSecond: clean.V2_PULL_REQUEST_READS_PER_SECOND,
      metricsPerSecond: clean.V2_METRICS_PER_SECOND,
    },
    flakyRetentionDays: clean.FLAKY_RETENTION_DAYS,
    flakyMaxUploadBytes: clean.FLAKY_MAX_UPLOAD_MB * 1024 * 1024,
    flakyTicketUrlTemplate: clean.FLAKY_TICKET_URL_TEMPLATE ?? null,
    flakyInfraFailureThreshold: clean.FLAKY_INFRA_FAILURE_THRESHOLD,
    flakyUploadUrlTtlSeconds: clean.FLAKY_UPLOAD_URL_TTL_SECONDS,
    flakyUploadWaitSeconds: clean.FLAKY_UPLOAD_WAIT_SECONDS,
    flakyRefreshSeconds: clean.FLAKY_REFRESH_SECONDS,
    github,
    webhooks: {
      retryBaseMs: clean.WEBHOOK_RETRY_BASE_MS,
      maxAttempts: clean.WEBHOOK_MAX_ATTEMPTS,
      disableAfterSeconds: clean.WEBHOOK_DISABLE_AFTER_SECONDS,
      timeoutMs: clean.WEBHOOK_TIMEOUT_MS,
      endpointConcurrency: clean.WEBHOOK_ENDPOINT_CONCURRENCY,
      allowedDestinations: clean.WEBHOOK_ALLOWED_DESTINATIONS ?? NOTHING_ALLOWED,
    },
    workerQueues,
    signIn,
    personalTokenDays: clean.PERSONAL_TOKEN_DAYS,
  };
}

interface GitHubEnv {
  GITHUB_APP_ID?: string | undefined;
  GITHUB_APP_PRIVATE_KEY?: string | undefined;
  GITHUB_APP_PRIVATE_KEY_FILE?: string | undefined;
  GITHUB_TOKEN?: string | undefined;
  GITHUB_WEBHOOK_SECRET?: string | undefined;
  GITHUB_API_URL: string;
  GITHUB_HOST: string;
  GITHUB_GIT_URL?: string | undefined;
  GITHUB_WEBHOOK_POLL_SECONDS?: number | undefined;
  GITHUB_WEBHOOK_QUIET_SECONDS: number;
  PROVIDER_POLL_SECONDS: number;
}

/** The GitHub settings, or null when GitHub is not configured; problems are pushed to `errors`. */
function gitHubConfig(env: GitHubEnv, errors: string[]): GitHubConfig | null {
  const auth = gitHubAuth(env, errors);
  if (!auth) {
    if (env.GITHUB_WEBHOOK_SECRET) errors.push('GITHUB_WEBHOOK_SECRET: set GITHUB_APP_ID (with a private key) or GITHUB_TOKEN too');
    return null;
  }
  const host = env.GITHUB_HOST.toLowerCase();
  if (!/^[a-z0-9.-]+(?::\d+)?$/.test(host)) errors.push('GITHUB_HOST: must be a host name, e.g. github.com or ghe.example.com');
  const secret = env.GITHUB_WEBHOOK_SECRET ?? null;
  if (secret !== null && secret.length < 16) errors.push('GITHUB_WEBHOOK_SECRET: must be at least 16 characters');
  // Default: 300 s, but never faster than the normal poll.
  const webhookPollSeconds = env.GITHUB_WEBHOOK_POLL_SECONDS ?? Math.max(300, env.PROVIDER_POLL_SECONDS);
  if (webhookPollSeconds < env.PROVIDER_POLL_SECONDS) {
    errors.push(
      `GITHUB_WEBHOOK_POLL_SECONDS: must be at least PROVIDER_POLL_SECONDS (${env.PROVIDER_POLL_SECONDS}): it is the slower poll while webhooks arrive`,
    );
  }
  return {
    auth,
    webhookSecret: secret,
    apiUrl: env.GITHUB_API_URL.replace(/\/+$/, ''),
    host,
    gitUrl: (env.GITHUB_GIT_URL ?? `https://${host}`).replace(/\/+$/, ''),
    webhookPollSeconds,
    webhookQuietSeconds: env.GITHUB_WEBHOOK_QUIET_SECONDS,
  };
}

function gitHubAuth(env: GitHubEnv, errors: string[]): GitHubAuthConfig | null {
  const keyText = env.GITHUB_APP_PRIVATE_KEY;
  const keyFile = env.GITHUB_APP_PRIVATE_KEY_FILE;
  if (env.GITHUB_APP_ID === undefined) {
    if (keyText !== undefined || keyFile !== undefined) errors.push('GITHUB_APP_PRIVATE_KEY: set GITHUB_APP_ID too');
    return env.GITHUB_TOKEN ? { kind: 'token', token: env.GITHUB_TOKEN } : null;
  }
  if (env.GITHUB_TOKEN !== undefined) errors.push('GITHUB_TOKEN: set either a GitHub App (GITHUB_APP_ID) or a token, not both');
  if (!/^\d+$|^Iv[0-9A-Za-z.]+$/.test(env.GITHUB_APP_ID)) errors.push('GITHUB_APP_ID: must be the App ID (digits) or its client ID (Iv…)');
  if ((keyText === undefined) === (keyFile === undefined)) {
    errors.push('GITHUB_APP_PRIVATE_KEY: set exactly one of GITHUB_APP_PRIVATE_KEY (PEM text) or GITHUB_APP_PRIVATE_KEY_FILE');
    return null;
  }
  let privateKey: string;
  try {
    // `\n` escapes let the PEM travel in one-line environment files.
    privateKey = keyText !== undefined ? keyText.replace(/\\n/g, '\n') : readFileSync(keyFile as string, 'utf8');
    createPrivateKey(privateKey);
  } catch (err) {
    errors.push(
      `GITHUB_APP_PRIVATE_KEY${keyFile !== undefined ? '_FILE' : ''}: not a readable PEM private key (${err instanceof Error ? err.message : String(err)})`,
    );
    return null;
  }
  return { kind: 'app', appId: env.GITHUB_APP_ID, privateKey };
}
