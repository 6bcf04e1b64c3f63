// Scale-out benchmark: merges per minute with a simulated CI, and getQueue served meanwhile, for
// the API and two (--workers) worker processes against one MongoDB and one Redis from docker
// compose (docker-compose.yml with docker-compose.bench.yml).
//
//   npm run bench:scale-out                        # docker compose: build, start, measure, remove
//   npm run bench:scale-out -- --workers 4 --pull-requests 1000 --ci-seconds 60
//   npm run bench:scale-out -- --embedded          # no docker: one process here (embedded store, private redis-server)
//
// Options and their defaults: scripts/lib/scale-out-options.ts (USAGE). The compose stack is a
// project of its own (openmq-bench) with its own volumes, removed afterwards unless --keep. The
// measurement (scripts/lib/scale-out-driver.ts) talks to the service over HTTP only and plays CI
// on the repository it creates in the directory the containers mount as LOCAL_GIT_ROOT.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeArgs, composeEnvironment, parseScaleOutArgs, UsageError, type ScaleOutOptions } from './lib/scale-out-options.js';
import { driveScaleOut, type ScaleOutResult, type ScaleOutService } from './lib/scale-out-driver.js';
import { machineSummary, median } from './lib/bench-stats.js';
import { invariantsHold } from './lib/scale-out-invariants.js';
import { waitFor } from './lib/wait.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** No docker, or docker without the compose plugin: said in one line, not with a stack trace. */
class ComposeUnavailableError extends Error {}

/** Runs `docker …` in the repository root with the inherited output; rejects on a failure. */
function docker(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, ...env } });
    child.once('error', (err) => reject(new ComposeUnavailableError(`docker could not be started (${err.message})`)));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`docker ${args.join(' ')} exited with ${code}`))));
  });
}

async function withCompose(opts: ScaleOutOptions, run: (service: ScaleOutService) => Promise<ScaleOutResult[]>): Promise<ScaleOutResult[]> {
  const gitRoot = await mkdtemp(path.join(os.tmpdir(), 'openmq-scale-out-git-'));
  const token = randomBytes(24).toString('hex');
  const env = composeEnvironment({ token, gitRoot, uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000 });
  await docker(['compose', 'version'], env).catch((err: Error) => {
    throw new ComposeUnavailableError(`docker compose is not available here (${err.message})`);
  });
  try {
    await docker(composeArgs('up', opts), env);
    await waitFor('the API ready', async () => (await fetch(`${opts.apiUrl}/readyz`).catch(() => null))?.ok, { timeoutMs: 120_000, intervalMs: 500 });
    return await run({ url: opts.apiUrl, token, gitRoot });
  } finally {
    if (!opts.keep) {
      await docker(composeArgs('down', opts), env);
      await rm(gitRoot, { recursive: true, force: true });
    }
  }
}

async function withEmbedded(run: (service: ScaleOutService) => Promise<ScaleOutResult[]>): Promise<ScaleOutResult[]> {
  // Loaded here: the compose run needs neither a local redis-server nor the service's modules.
  const { startRedis } = await import('./lib/redis-server.mjs');
  const { startTestService } = await import('./lib/test-service.js');
  const { makeGitRoot, removeGitRoot } = await import('./lib/git-fixtures.js');
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  const gitRoot = await makeGitRoot();
  const svc = await startTestService({ gitRoot, startWorkers: true });
  try {
    return await run({ url: svc.url, token: svc.token, gitRoot });
  } finally {
    await svc.close();
    await removeGitRoot(gitRoot);
    await redis.stop();
  }
}

async function main(): Promise<void> {
  let opts: ScaleOutOptions;
  try {
    opts = parseScaleOutArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const measure = async (service: ScaleOutService) => {
    const results: ScaleOutResult[] = [];
    for (let run = 1; run <= opts.runs; run++) {
      results.push(await driveScaleOut(service, opts, (line) => console.error(`run ${run}/${opts.runs}: ${line}`)));
    }
    return results;
  };
  let results: ScaleOutResult[];
  try {
    results = opts.target === 'compose' ? await withCompose(opts, measure) : await withEmbedded(measure);
  } catch (err) {
    if (err instanceof ComposeUnavailableError) {
      console.error(`${err.message}: the benchmark needs docker with the compose plugin (docs/benchmarks.md); --embedded runs the measurement without it`);
      process.exit(3);
    }
    throw err;
  }

  const setup =
    opts.target === 'compose'
      ? `docker compose: API + ${opts.workers} worker processes, one MongoDB, one Redis`
      : 'embedded: API and workers in one process, embedded store in memory, private redis-server';
  console.log(`\n${machineSummary()}; ${setup}`);
  console.log(
    `${opts.pullRequests} pull requests, queue concurrency ${opts.concurrency}, CI passes each test branch after ${opts.ciSeconds} s, ${opts.getQueueConnections} connections polling getQueue\n`,
  );
  console.log('| run | merged | minutes | merges per minute | test runs | submitting all (s) | getQueue req/s | getQueue p99 (ms) |');
  console.log('|---|---|---|---|---|---|---|---|');
  results.forEach((r, i) => {
    const g = r.getQueue;
    console.log(
      `| ${i + 1} | ${r.merged} / ${r.pullRequests} | ${(r.seconds / 60).toFixed(1)} | ${r.mergesPerMinute.toFixed(1)} | ${r.testRuns} | ${r.submitSeconds.toFixed(1)} | ${g.rps.toFixed(0)} | ${g.p99} |${g.failed ? ` **${g.failed} failed getQueue requests**` : ''}`,
    );
  });
  const mid = (f: (r: ScaleOutResult) => number) => median(results.map(f));
  console.log(
    `| median | | ${(mid((r) => r.seconds) / 60).toFixed(1)} | ${mid((r) => r.mergesPerMinute).toFixed(1)} | ${mid((r) => r.testRuns)} | ${mid((r) => r.submitSeconds).toFixed(1)} | ${mid((r) => r.getQueue.rps).toFixed(0)} | ${mid((r) => r.getQueue.p99)} |`,
  );
  for (const [i, r] of results.entries()) {
    if (!invariantsHold(r.invariants)) console.log(`run ${i + 1}: **the run broke an invariant**: ${JSON.stringify(r.invariants)}`);
  }
  if (results.some((r) => r.merged < r.pullRequests || !invariantsHold(r.invariants))) process.exitCode = 1;
}

await main();
