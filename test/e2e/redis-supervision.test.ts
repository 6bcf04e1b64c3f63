// `npm start` owns its redis-server: the real process tree (scripts/start.mjs → redis-server and
// the all-in-one service) loses that redis-server to SIGKILL. It must come back on its own, on
// the same port and data, so the service is ready again and enqueues work; and a Redis that
// cannot come back must stop the service with a message and a non-zero exit, not leave it hung.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createPullRequest, createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { freePort } from '../../scripts/lib/redis-server.mjs';
import { waitFor } from '../../scripts/lib/wait.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const TOKEN = `omq_redis-test-${randomUUID()}`;
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

interface Started {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number>;
}

async function npmStart(dataDir: string): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    // No REDIS_URL: start.mjs launches (and owns) its redis-server.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATA_DIR: dataDir,
      PORT: String(port),
      API_TOKEN: TOKEN,
      OPERATOR_PORT: '0',
      LOG_LEVEL: 'warn',
      PROVIDER_POLL_SECONDS: '1',
      SHUTDOWN_GRACE_SECONDS: '5',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0))));
  await waitFor('the start banner', async () => /URL:\s+http/.test(out), { timeoutMs: 60_000 });
  return { child, url: `http://127.0.0.1:${port}`, stderr: () => err, exited };
}

function redisPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'redis', 'redis.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function post(url: string, p: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    const res = await fetch(`${url}/v1${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': TOKEN },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return { status: 0, body: {} };
  }
}

const readyz = async (url: string): Promise<number> => (await fetch(`${url}/readyz`)).status;

describe('npm start supervises its redis-server', function () {
  this.timeout(120_000);
  let dir: string;
  let started: Started | null = null;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'openmq-redis-'));
  });
  afterEach(async () => {
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGTERM');
      await started.exited;
    }
    started = null;
    const pid = redisPid(dir);
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('restarts a redis-server killed with SIGKILL; the service is ready again and enqueues work', async () => {
    const fx = await createRepo(path.join(dir, 'git'), { repo: DEFAULT_REPO, files: { 'README.md': '# widgets\n' } });
    await createPullRequest(fx, { number: 1, commits: [{ message: 'Change 1', files: { 'f1.txt': '1\n' } }] });
    started = await npmStart(dir);
    const { url } = started;
    expect((await post(url, '/createQueue', ref)).status).to.equal(200);
    expect((await post(url, '/updateQueue', { ...ref, requiredStatuses: ['ci/test'] })).status).to.equal(200);
    await waitFor('/readyz 200', async () => (await readyz(url)) === 200);

    const first = redisPid(dir);
    expect(first).to.be.a('number');
    process.kill(first!, 'SIGKILL');

    const second = await waitFor(
      'a new redis-server',
      async () => {
        const pid = redisPid(dir);
        return pid !== null && pid !== first && alive(pid) ? pid : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(second).to.not.equal(first);
    await waitFor('/readyz 200 after the restart', async () => (await readyz(url)) === 200, { timeoutMs: 30_000, intervalMs: 100 });
    expect(started.stderr()).to.match(/redis-server \(pid \d+\) was killed by SIGKILL; restarting it on port \d+/);
    // Redis answers (and /readyz turns 200) a moment before the supervisor logs the restart.
    await waitFor('the restart logged', async () => /redis-server restarted on port \d+/.test(started!.stderr()), { timeoutMs: 10_000, intervalMs: 50 });

    // Submitting enqueues a planning pass; the worker's pass starts a test run for the PR.
    await waitFor('submission accepted', async () => (await post(url, '/submitPullRequest', { ...ref, pr: { number: 1 } })).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    await waitFor(
      'the PR to be tested',
      async () => {
        const got = await post(url, '/getSubmittedPullRequest', { ...ref, pr: { number: 1 } });
        return got.body.state === 'testing';
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect((await fetch(`${url}/healthz`)).status).to.equal(200);
  });

  it('stops the service with a message and exit status 1 when its redis-server cannot come back', async () => {
    started = await npmStart(dir);
    await waitFor('/readyz 200', async () => (await readyz(started!.url)) === 200);
    const pid = redisPid(dir);
    expect(pid).to.be.a('number');
    process.kill(pid!, 'SIGKILL');
    // A damaged append-only file: redis-server refuses to start from it.
    writeFileSync(path.join(dir, 'redis', 'appendonlydir', 'appendonly.aof.manifest'), 'damaged\n');

    await waitFor('start.mjs to exit', async () => started!.child.exitCode !== null || started!.child.signalCode !== null, {
      timeoutMs: 90_000,
      intervalMs: 200,
    });
    const code = await started.exited;
    expect(code).to.equal(1);
    const stderr = started.stderr();
    expect(stderr).to.include('Invalid AOF manifest file format');
    expect(stderr).to.match(/attempt 5 of 5/);
    expect(stderr).to.include('openmq: stopped because Redis cannot come back');
    expect(stderr).to.include('so that a supervisor restarts the service');
  });
});
