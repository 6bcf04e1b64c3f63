// `npm test`: runs the whole suite with mocha (through tsx) against a private redis-server,
// unless REDIS_URL points at one already. Extra arguments go to mocha (e.g. a file or --grep).
import { spawn } from 'node:child_process';
import { startRedis, REDIS_MISSING_MESSAGE, redisServerAvailable } from './lib/redis-server.mjs';

let redis;
if (!process.env.REDIS_URL) {
  if (!redisServerAvailable()) {
    console.error(REDIS_MISSING_MESSAGE);
    process.exit(1);
  }
  redis = await startRedis();
  process.env.REDIS_URL = redis.url;
}

// Without a file or folder argument, the whole suite runs.
const args = process.argv.slice(2);
const hasSpec = args.some((a) => a.endsWith('.ts') || a.startsWith('test/') || a.startsWith('./test/'));
const mocha = spawn(process.execPath, ['node_modules/mocha/bin/mocha.js', ...(hasSpec ? [] : ['test/**/*.test.ts']), ...args], {
  stdio: 'inherit',
  env: process.env,
});
const code = await new Promise((resolve) => mocha.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (redis) await redis.stop();
process.exit(code);
