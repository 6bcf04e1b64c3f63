// HTTP benchmark of queue administration: getQueue and updateQueue against the running service,
// beside a bare Koa hello-world measured in the same run (the ceiling for this machine).
//
//   npx tsx scripts/bench-http.ts [--duration 10] [--connections 50] [--runs 3]
//
// Starts a private redis-server and the service in-process (embedded database in memory, the
// same code path as `npm start`), then runs autocannon against each endpoint `runs` times and
// prints the median requests/s and p99 latency.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Koa from 'koa';
import { startRedis } from './lib/redis-server.mjs';
import { startTestService } from './lib/test-service.js';
import { createRepo, DEFAULT_REPO, makeGitRoot, removeGitRoot } from './lib/git-fixtures.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    runs: { type: 'string', default: '3' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const runs = Number(values.runs);

interface Sample {
  rps: number;
  p99: number;
  non2xx: number;
}

async function measure(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }): Promise<Sample> {
  const result = await autocannon({ url, connections, duration, method: init.method, headers: init.headers ?? {}, ...(init.body ? { body: init.body } : {}) });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  const gitRoot = await makeGitRoot();
  await createRepo(gitRoot, { repo: DEFAULT_REPO });
  const svc = await startTestService({ gitRoot });
  const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };
  await svc.post('/createQueue', ref);

  const hello = new Koa();
  hello.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const helloServer = http.createServer(hello.callback()).listen(0, '127.0.0.1');
  await new Promise((r) => helloServer.once('listening', r));
  const helloUrl = `http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/`;

  const headers = { 'content-type': 'application/json', 'x-api-token': svc.token };
  const targets: { name: string; run: () => Promise<Sample> }[] = [
    { name: 'bare Koa hello-world (GET)', run: () => measure(helloUrl, { method: 'GET' }) },
    { name: 'POST /v1/getQueue', run: () => measure(`${svc.url}/v1/getQueue`, { method: 'POST', headers, body: JSON.stringify(ref) }) },
    {
      name: 'POST /v1/updateQueue',
      run: () => measure(`${svc.url}/v1/updateQueue`, { method: 'POST', headers, body: JSON.stringify({ ...ref, concurrency: 2, pendingFailureDepth: 1 }) }),
    },
  ];

  const rows: string[] = [];
  for (const t of targets) {
    const samples: Sample[] = [];
    for (let i = 0; i < runs; i++) samples.push(await t.run());
    const bad = samples.reduce((n, s) => n + s.non2xx, 0);
    rows.push(
      `| ${t.name} | ${Math.round(median(samples.map((s) => s.rps)))} | ${median(samples.map((s) => s.p99))} | ${samples.map((s) => Math.round(s.rps)).join(', ')} |${bad ? ` ${bad} non-2xx!` : ''}`,
    );
  }
  console.log(`\n${machineSummary()}; autocannon ${connections} connections × ${duration} s, ${runs} runs each\n`);
  console.log('| target | median req/s | median p99 (ms) | req/s per run |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);

  helloServer.close();
  await svc.close();
  await removeGitRoot(gitRoot);
  await redis.stop();
}

await main();
