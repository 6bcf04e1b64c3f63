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
      sock.once('connect', () => {
        sock.end();
        resolve();
      });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() - started > deadlineMs) reject(new Error(`redis-server did not listen on ${port} within ${deadlineMs} ms`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** How many lines of redis-server's log are kept to explain an exit. */
const KEPT_LOG_LINES = 20;

/** Keeps the last lines of a stream (redis-server logs to stdout, which nobody reads otherwise). */
function logTail(stream) {
  const lines = [];
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') lines.push(line.trim());
    lines.splice(0, Math.max(0, lines.length - KEPT_LOG_LINES));
  });
  return () => [...lines, ...(partial.trim() === '' ? [] : [partial.trim()])];
}

/** The last log line, without redis-server's "pid:role date time level" prefix. */
function lastLogLine(lines) {
  const last = lines.at(-1);
  return last ? last.replace(/^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ [#*.-] /, '') : '';
}

/**
 * @param {{ dataDir?: string, persistent?: boolean, port?: number }} options
 *   persistent: AOF on with data under dataDir (npm start); otherwise no persistence (tests).
 *   port: listen there (a restart keeps its clients' URL); default a free port.
 * @returns {Promise<import('./redis-server.d.mts').RedisServer>}
 */
export async function startRedis({ dataDir, persistent = false, port: requestedPort } = {}) {
  if (!redisServerAvailable()) throw new Error(REDIS_MISSING_MESSAGE);
  const port = requestedPort ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--maxmemory-policy', 'noeviction', '--protected-mode', 'yes'];
  if (persistent && dataDir) {
    mkdirSync(dataDir, { recursive: true });
    args.push('--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--pidfile', `${dataDir}/redis.pid`);
  } else {
    args.push('--save', '', '--appendonly', 'no');
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const log = logTail(child.stdout);
  /** @type {Promise<{ code: number | null, signal: NodeJS.Signals | null, lastLogLine: string }>} */
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, lastLogLine: lastLogLine(log()) })));
  await Promise.race([
    waitForPort(port, 10_000),
    exited.then(({ code, lastLogLine: line }) => {
      throw new Error(`redis-server exited early with code ${code}${line ? `: ${line}` : ''}`);
    }),
  ]);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  };
}
