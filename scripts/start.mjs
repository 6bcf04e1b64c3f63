// `npm start`: the whole service in one process with embedded defaults.
// 1. installs dependencies when node_modules is missing or stale;
// 2. builds the dashboard (web/ → web/dist) when it is missing or stale;
// 3. launches a private redis-server (data under DATA_DIR/redis) unless REDIS_URL is set, and
//    restarts it when it dies; when it cannot come back, stops the service and exits 1;
// 4. runs the all-in-one entry point (API + workers), which prints the URL and a token.
// Plain JavaScript on purpose: it must run before dependencies are installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingProgramsLine } from './lib/system-packages.mjs';
import { superviseRedis } from './lib/redis-supervisor.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

// git serves the local repositories; redis-server holds the jobs unless REDIS_URL names one.
const missing = missingProgramsLine('npm start', ['git', ...(process.env.REDIS_URL ? [] : ['redis-server'])]);
if (missing) {
  console.error(missing);
  process.exit(1);
}

function dependenciesStale() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return true;
  const lock = path.join(root, 'package-lock.json');
  return existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs;
}

if (dependenciesStale()) {
  console.log('Installing dependencies (npm ci)…');
  const res = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (res.status !== 0) {
    console.error('npm ci failed; fix the error above and run npm start again.');
    process.exit(res.status ?? 1);
  }
}

// Imported only now: it loads Vite, which the step above may just have installed.
const { ensureWebBuild } = await import('./lib/web-build.mjs');
await ensureWebBuild({ quiet: true });

const dataDir = path.resolve(process.env.DATA_DIR || '.data');
mkdirSync(dataDir, { recursive: true });

let redis = null;
/** Why the service is being stopped when Redis cannot come back; null otherwise. */
let redisLost = null;
let child = null;
if (!process.env.REDIS_URL) {
  stopStaleRedis(path.join(dataDir, 'redis'));
  redis = await superviseRedis({
    dataDir: path.join(dataDir, 'redis'),
    log: (message) => console.error(`openmq: ${message}`),
    onGiveUp: (message) => {
      redisLost = message;
      if (child && child.exitCode === null) child.kill('SIGTERM');
    },
  });
}

child = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'all-in-one.ts')], {
  stdio: 'inherit',
  env: { ...process.env, DATA_DIR: dataDir, ...(redis ? { REDIS_URL: redis.url } : {}) },
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    if (child.exitCode === null) child.kill(signal);
  });
}

const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
if (redis) await redis.stop();
if (redisLost) {
  console.error(`openmq: stopped because Redis cannot come back: ${redisLost}. Exiting with status 1 so that a supervisor restarts the service.`);
  process.exit(1);
}
process.exit(stopping ? 0 : code);

/** A redis-server left behind by a start that was killed (SIGKILL) still holds the data dir. */
function stopStaleRedis(redisDir) {
  const pidFile = path.join(redisDir, 'redis.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('redis-server')) process.kill(pid, 'SIGTERM');
  } catch {
    // Not running (or not Linux): nothing to stop.
  }
}
