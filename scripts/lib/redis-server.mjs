// Starts a private redis-server from PATH on a free loopback port. Used by `npm start` (embedded
// defaults) and by `npm test`. Plain JavaScript so it runs before dependencies are installed.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { mkdirSync } from 'node:fs';

export const REDIS_MISSING_MESSAGE =
  'redis-server was not found on PATH: install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) or set REDIS_URL.';

export function redisServerAvailable() {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function waitForPort(port, deadlineMs) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => { sock.end(); resolve(); });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() - started > deadlineMs) reject(new Error(`redis-server did not listen on ${port} within ${deadlineMs} ms`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/**
 * @param {{ dataDir?: string, persistent?: boolean }} options
 *   persistent: AOF on with data under dataDir (npm start); otherwise no persistence (tests).
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startRedis({ dataDir, persistent = false } = {}) {
  if (!redisServerAvailable()) throw new Error(REDIS_MISSING_MESSAGE);
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--maxmemory-policy', 'noeviction', '--protected-mode', 'yes'];
  if (persistent && dataDir) {
    mkdirSync(dataDir, { recursive: true });
    args.push('--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--pidfile', `${dataDir}/redis.pid`);
  } else {
    args.push('--save', '', '--appendonly', 'no');
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await Promise.race([
    waitForPort(port, 10_000),
    exited.then((code) => { throw new Error(`redis-server exited early with code ${code}`); }),
  ]);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}
