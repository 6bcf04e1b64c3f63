// `npm test`: runs the whole suite with mocha (through tsx) against a private redis-server,
// unless REDIS_URL points at one already. Extra arguments go to mocha: a file, a folder (every
// *.test.ts under it), --grep and other options. MONGO_URL, when set, is passed on: the database
// contract suite and the integration tier then run against MongoDB too.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { startRedis } from './lib/redis-server.mjs';
import { missingProgramsLine } from './lib/system-packages.mjs';

const TESTS = '**/*.test.ts';

/** 'dir', 'file' or null for an argument that names no path (an option or its value). */
function pathKind(arg) {
  if (arg.startsWith('-')) return null;
  try {
    return statSync(arg).isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

// Mocha reads a folder without descending into it and would also load its support modules;
// a folder therefore stands for the test files anywhere below it.
const args = process.argv.slice(2).map((arg) => (pathKind(arg) === 'dir' ? path.join(arg, TESTS) : arg));
const hasSpec = process.argv.slice(2).some((arg) => pathKind(arg) !== null);

// The whole suite runs the metrics checks (promtool) and the browser tests (chromium) too; a
// chosen file or folder needs at least git and, without REDIS_URL, redis-server.
const needed = ['git', ...(process.env.REDIS_URL ? [] : ['redis-server']), ...(hasSpec ? [] : ['promtool', 'chromium'])];
const missing = missingProgramsLine('npm test', needed);
if (missing) {
  console.error(missing);
  process.exit(1);
}

let redis;
if (!process.env.REDIS_URL) {
  redis = await startRedis();
  process.env.REDIS_URL = redis.url;
}

const mocha = spawn(process.execPath, ['node_modules/mocha/bin/mocha.js', ...(hasSpec ? [] : [`test/${TESTS}`]), ...args], {
  stdio: 'inherit',
  env: process.env,
});
const code = await new Promise((resolve) => mocha.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (redis) await redis.stop();
process.exit(code);
