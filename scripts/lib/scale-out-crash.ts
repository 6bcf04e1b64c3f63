// The scale-out run with a crash in the middle (scripts/scale-out-crash.ts): the service as real
// processes, part of it killed with SIGKILL once a third of the pull requests have merged, and the
// invariants checked afterwards (scale-out-invariants.ts).
// - processes: the API and `workers` worker processes against MONGO_URL and REDIS_URL (the GitHub
//   Actions scale-out job); one worker is killed and not restarted, so the others must take over
//   what it held;
// - embedded: the all-in-one process on the embedded store (runs here, in the test suite); the
//   whole process is killed and started again on its data directory, so the store's journal and
//   the queue's recovery at start are what carry the run.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, startRedis } from './redis-server.mjs';
import type { CapturedProcess } from './captured-process.js';
import { printedUrl, startServiceProcess } from './service-process.js';
import { driveScaleOut, type ScaleOutResult } from './scale-out-driver.js';
import { integer, parseOptions, UsageError, type ScaleOutOptions } from './scale-out-options.js';
import { waitFor } from './wait.js';

export type CrashTarget = 'processes' | 'embedded';

export interface CrashRunOptions extends Pick<ScaleOutOptions, 'pullRequests' | 'ciSeconds' | 'concurrency' | 'getQueueConnections' | 'timeoutMinutes'> {
  target: CrashTarget;
  /** Worker processes (processes only). */
  workers: number;
}

export interface CrashRunResult extends ScaleOutResult {
  /** What was killed. */
  killed: string;
}

export const CRASH_USAGE =
  'npx tsx scripts/scale-out-crash.ts --processes|--embedded [--workers 3] [--pull-requests 60] [--ci-seconds 2] [--concurrency 4] [--timeout-minutes 15]';

/** The command line of scripts/scale-out-crash.ts; a UsageError names what is wrong. */
export function parseCrashArgs(argv: readonly string[]): CrashRunOptions {
  const values = parseOptions(
    argv,
    {
      processes: { type: 'boolean', default: false },
      embedded: { type: 'boolean', default: false },
      workers: { type: 'string', default: '3' },
      'pull-requests': { type: 'string', default: '60' },
      'ci-seconds': { type: 'string', default: '2' },
      concurrency: { type: 'string', default: '4' },
      'timeout-minutes': { type: 'string', default: '15' },
    },
    CRASH_USAGE,
  );
  if (values.processes === values.embedded) throw new UsageError('choose one of --processes and --embedded', CRASH_USAGE);
  return {
    target: values.processes ? 'processes' : 'embedded',
    workers: integer('workers', values.workers, 2, 16, CRASH_USAGE),
    pullRequests: integer('pull-requests', values['pull-requests'], 3, 10_000, CRASH_USAGE),
    ciSeconds: integer('ci-seconds', values['ci-seconds'], 0, 3600, CRASH_USAGE),
    concurrency: integer('concurrency', values.concurrency, 1, 100, CRASH_USAGE),
    getQueueConnections: 2,
    timeoutMinutes: integer('timeout-minutes', values['timeout-minutes'], 1, 120, CRASH_USAGE),
  };
}

async function killed(proc: CapturedProcess): Promise<void> {
  proc.child.kill('SIGKILL');
  await proc.exited;
}

async function stopAll(procs: readonly CapturedProcess[]): Promise<void> {
  await Promise.all(
    procs.map(async (p) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) return;
      p.child.kill('SIGTERM');
      await p.exited;
    }),
  );
}

export async function runCrash(opts: CrashRunOptions, log: (line: string) => void = () => {}): Promise<CrashRunResult> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'openmq-scale-out-crash-'));
  const gitRoot = path.join(dataDir, 'git');
  const token = randomBytes(24).toString('hex');
  const port = await freePort();
  const procs: CapturedProcess[] = [];
  const redis = process.env.REDIS_URL ? null : await startRedis({ dataDir: path.join(dataDir, 'redis') });
  const env: Record<string, string> = {
    REDIS_URL: process.env.REDIS_URL ?? redis!.url,
    LOCAL_GIT_ROOT: gitRoot,
    // Unique per run: several runs may share one Redis.
    BULLMQ_PREFIX: `{crash-${randomBytes(4).toString('hex')}}`,
    // Recovery must come from the jobs and the start-up reconciliation, not from a periodic sweep.
    PROVIDER_POLL_SECONDS: '3600',
  };
  const start = (entry: 'all-in-one' | 'api' | 'worker', extra: Record<string, string> = {}) => {
    const p = startServiceProcess({ entry, dataDir, token, env: { ...env, ...extra } });
    procs.push(p);
    return p;
  };
  try {
    let interrupt: () => Promise<void>;
    let victim: string;
    if (opts.target === 'embedded') {
      let service = start('all-in-one', { PORT: String(port) });
      await printedUrl(service);
      victim = 'the all-in-one process (restarted on its data directory)';
      interrupt = async () => {
        await killed(service);
        service = start('all-in-one', { PORT: String(port) });
        await printedUrl(service);
      };
    } else {
      const mongoUrl = process.env.MONGO_URL;
      if (!mongoUrl) throw new Error('MONGO_URL is required for --processes: the API and the workers share a MongoDB');
      env.MONGO_URL = mongoUrl;
      start('api', { PORT: String(port) });
      const workers = Array.from({ length: opts.workers }, () => start('worker'));
      await waitFor('the API ready', async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok, {
        timeoutMs: 120_000,
        intervalMs: 250,
      });
      victim = `worker 1 of ${opts.workers} (not restarted)`;
      interrupt = () => killed(workers[0]!);
    }
    const result = await driveScaleOut({ url: `http://127.0.0.1:${port}`, token, gitRoot }, opts, log, {
      afterMerged: Math.max(1, Math.floor(opts.pullRequests / 3)),
      run: interrupt,
    });
    return { ...result, killed: victim };
  } catch (err) {
    for (const p of procs) log(`--- output of a service process:\n${p.output()}`);
    throw err;
  } finally {
    await stopAll(procs);
    await redis?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
