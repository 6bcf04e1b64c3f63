// The command line of the scale-out benchmark (scripts/bench-scale-out.ts) and the docker compose
// invocation it makes, kept apart from the script so both are tested without docker.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type ScaleOutTarget = 'compose' | 'embedded';

export interface ScaleOutOptions {
  /** compose: the API and `workers` worker processes against MongoDB and Redis from docker compose; embedded: one process here. */
  target: ScaleOutTarget;
  /** Worker processes (compose only). */
  workers: number;
  /** Measurements on the same stack, each with a fresh repository and queue (the table gives each and the median). */
  runs: number;
  /** Pull requests submitted, all at once at the start. */
  pullRequests: number;
  /** How long the simulated CI takes to pass a test branch. */
  ciSeconds: number;
  /** The queue's `concurrency` (test runs at once). */
  concurrency: number;
  /** Connections polling getQueue for the whole time the queue merges. */
  getQueueConnections: number;
  /** The run gives up after this long without every pull request merged. */
  timeoutMinutes: number;
  /** compose: leave the stack running afterwards (for a look at logs and the dashboard). */
  keep: boolean;
  /** compose: where the API answers (the port the compose file publishes). */
  apiUrl: string;
}

export const USAGE = `npm run bench:scale-out -- [--embedded] [--workers 2] [--runs 3] [--pull-requests 200] [--ci-seconds 20]
  [--concurrency 8] [--get-queue-connections 10] [--timeout-minutes 30] [--keep] [--api-url http://127.0.0.1:8080]`;

/** A command line the benchmark cannot run: the message says which option and why. */
export class UsageError extends Error {
  constructor(message: string, usage: string = USAGE) {
    super(`${message}\nusage: ${usage}`);
    this.name = 'UsageError';
  }
}

/** An integer option from min to max, or a UsageError naming it. */
export function integer(name: string, text: string, min: number, max: number, usage: string = USAGE): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got "${text}")`, usage);
  return n;
}

/** parseArgs, strict, with its complaints (an unknown option, a missing value) as a UsageError. */
export function parseOptions<const T extends NonNullable<ParseArgsConfig['options']>>(argv: readonly string[], options: T, usage: string = USAGE) {
  try {
    return parseArgs({ args: [...argv], strict: true, options }).values;
  } catch (err) {
    throw new UsageError((err as Error).message, usage);
  }
}

export function parseScaleOutArgs(argv: readonly string[]): ScaleOutOptions {
  const values = parseOptions(argv, {
    embedded: { type: 'boolean', default: false },
    workers: { type: 'string' },
    runs: { type: 'string', default: '3' },
    'pull-requests': { type: 'string', default: '200' },
    'ci-seconds': { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '8' },
    'get-queue-connections': { type: 'string', default: '10' },
    'timeout-minutes': { type: 'string', default: '30' },
    keep: { type: 'boolean', default: false },
    'api-url': { type: 'string' },
  });
  const target: ScaleOutTarget = values.embedded ? 'embedded' : 'compose';
  // The embedded store lives in one process: worker processes, a stack to keep and a URL to reach
  // only exist with compose, so asking for them here is a mistake, not something to ignore.
  if (target === 'embedded') {
    for (const [name, given] of [
      ['workers', values.workers !== undefined],
      ['keep', values.keep],
      ['api-url', values['api-url'] !== undefined],
    ] as const) {
      if (given) throw new UsageError(`--${name} applies to the docker compose stack, not to --embedded (one process, API and workers together)`);
    }
  }
  const apiUrl = values['api-url'] ?? 'http://127.0.0.1:8080';
  try {
    new URL(apiUrl);
  } catch {
    throw new UsageError(`--api-url must be a URL (got "${apiUrl}")`);
  }
  return {
    target,
    workers: values.workers === undefined ? 2 : integer('workers', values.workers, 1, 64),
    runs: integer('runs', values.runs, 1, 100),
    pullRequests: integer('pull-requests', values['pull-requests'], 1, 100_000),
    ciSeconds: integer('ci-seconds', values['ci-seconds'], 0, 86_400),
    concurrency: integer('concurrency', values.concurrency, 1, 1000),
    getQueueConnections: integer('get-queue-connections', values['get-queue-connections'], 1, 1000),
    timeoutMinutes: integer('timeout-minutes', values['timeout-minutes'], 1, 24 * 60),
    keep: values.keep,
    apiUrl,
  };
}

/** The compose files, from the repository root: the deployment's own file and the benchmark's override. */
export const COMPOSE_FILES = ['docker-compose.yml', 'docker-compose.bench.yml'] as const;
export const COMPOSE_PROJECT = 'openmq-bench';

/** `docker compose …` arguments to start the stack (waiting for health checks) or to remove it with its volumes. */
export function composeArgs(action: 'up' | 'down', opts: Pick<ScaleOutOptions, 'workers'>): string[] {
  const base = ['compose', ...COMPOSE_FILES.flatMap((f) => ['-f', f]), '-p', COMPOSE_PROJECT];
  return action === 'up' ? [...base, 'up', '-d', '--build', '--wait', '--scale', `worker=${opts.workers}`] : [...base, 'down', '-v'];
}

/** The variables docker-compose.bench.yml interpolates. */
export function composeEnvironment(run: { token: string; gitRoot: string; uid: number; gid: number }): Record<string, string> {
  return {
    BENCH_API_TOKEN: run.token,
    BENCH_GIT_ROOT: run.gitRoot,
    // The containers write into the repositories the script created: as their owner, or git
    // refuses them ("dubious ownership") and cannot write.
    BENCH_UID: String(run.uid),
    BENCH_GID: String(run.gid),
  };
}
