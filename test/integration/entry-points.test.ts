// The commands a newcomer and an operator run, as real processes: `npm start` (all-in-one with
// embedded defaults), the api and worker entry points, and the token script.
import { mkdtempSync, rmSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { spawnNode, type CapturedProcess } from '../../scripts/lib/captured-process.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

type Proc = CapturedProcess;

function run(args: string[], env: Record<string, string>): Proc {
  return spawnNode(args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } });
}

async function stop(p: Proc): Promise<number> {
  if (p.child.exitCode === null) p.child.kill('SIGTERM');
  return p.exited;
}

describe('entry points', function () {
  this.timeout(90_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'openmq-entry-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm start serves API and workers with embedded defaults, prints the URL and a token once, and keeps state across restarts', async () => {
    const env = { DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn', PROVIDER_POLL_SECONDS: '1', OPERATOR_PORT: '0' };
    const first = run(['scripts/start.mjs'], env);
    const banner = await waitFor('the start banner', async () => (/Token:\s+(omq_\S+)/.test(first.stdout()) ? first.stdout() : undefined), {
      timeoutMs: 60_000,
    });
    const url = /URL:\s+(http:\/\/\S+)/.exec(banner)?.[1];
    const token = /Token:\s+(omq_\S+)/.exec(banner)?.[1];
    expect(url, banner).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(token).to.be.a('string');
    expect(banner).to.include('API and workers in one process');

    await createRepo(path.join(dir, 'git'), { repo: DEFAULT_REPO });
    const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };
    const created = await fetch(`${url}/createQueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token! },
      body: JSON.stringify(ref),
    });
    expect(created.status).to.equal(200);
    expect(await stop(first)).to.equal(0);

    const second = run(['scripts/start.mjs'], env);
    const again = await waitFor('the second banner', async () => (/Token:/.test(second.stdout()) ? second.stdout() : undefined), { timeoutMs: 60_000 });
    expect(again).to.include('not shown again');
    expect(again).not.to.match(/omq_/);
    const url2 = /URL:\s+(http:\/\/\S+)/.exec(again)?.[1];
    const got = await fetch(`${url2}/getQueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token! },
      body: JSON.stringify(ref),
    });
    expect(got.status).to.equal(200);
    expect(((await got.json()) as { branch: string }).branch).to.equal('main');
    expect(await stop(second)).to.equal(0);
  });

  it('npm start and npm test name, in one line, the packages to install when programs they run are missing', async () => {
    // A PATH holding only node: no git, redis-server, promtool or chromium anywhere.
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const start = run(['scripts/start.mjs'], { DATA_DIR: dir, PATH: bin });
    expect(await start.exited).to.equal(1);
    expect(start.stderr().trim()).to.equal('npm start needs git, redis-server, not found: install them (Debian/Ubuntu: apt-get install -y git redis-server).');
    const test = run(['scripts/run-tests.mjs'], { DATA_DIR: dir, PATH: bin, CHROMIUM_PATH: path.join(dir, 'no-chromium') });
    expect(await test.exited).to.equal(1);
    expect(test.stderr().trim()).to.equal(
      'npm test needs git, redis-server, promtool, chromium, not found: install them (Debian/Ubuntu: apt-get install -y git redis-server prometheus chromium).',
    );
  });

  for (const [name, entry] of [
    ['api', 'api/server.ts'],
    ['worker', 'workers/main.ts'],
  ] as const) {
    it(`the ${name} entry point refuses to start without MONGO_URL, saying why`, async () => {
      const p = run(['--import', 'tsx', entry], { REDIS_URL: 'redis://127.0.0.1:1', DATA_DIR: dir });
      expect(await p.exited).to.equal(2);
      expect(p.stderr()).to.include('MONGO_URL is required');
      expect(p.stderr()).to.include('npm start');
    });
  }

  it('a bad configuration value stops start-up with a message naming the variable', async () => {
    const p = run(['--import', 'tsx', 'api/server.ts'], { PORT: 'eighty', LOG_LEVEL: 'loud', MONGO_URL: 'mongodb://127.0.0.1:1/x' });
    expect(await p.exited).to.equal(2);
    expect(p.stderr()).to.include('PORT');
    expect(p.stderr()).to.include('LOG_LEVEL');
  });

  it('a worker told to serve a queue that does not exist stops at start with one line naming it', async () => {
    const p = run(['--import', 'tsx', 'workers/main.ts'], {
      WORKER_QUEUES: 'plan,flakey-ingest',
      MONGO_URL: 'mongodb://127.0.0.1:1/x',
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(await p.exited).to.equal(2);
    expect(p.stderr().trim().split('\n')).to.have.length(1);
    expect(p.stderr()).to.match(/^worker: invalid configuration — WORKER_QUEUES: unknown flakey-ingest \(known queues: plan, .*flaky-ingest/);
  });

  it('the token script creates, lists and revokes tokens', async () => {
    const env = { DATA_DIR: dir };
    const created = run(['--import', 'tsx', 'scripts/token.ts', 'create', '--org', 'acme', '--name', 'ci'], env);
    expect(await created.exited, created.stderr()).to.equal(0);
    const token = /^(omq_\S+)$/m.exec(created.stdout())?.[1];
    const id = /^token (\S+) for organisation "acme"/m.exec(created.stdout())?.[1];
    expect(token).to.be.a('string');
    const listed = run(['--import', 'tsx', 'scripts/token.ts', 'list', '--org', 'acme'], env);
    expect(await listed.exited).to.equal(0);
    expect(listed.stdout()).to.include(`${id}  active`);
    expect(listed.stdout()).not.to.include(token!);
    const revoked = run(['--import', 'tsx', 'scripts/token.ts', 'revoke', id!], env);
    expect(await revoked.exited).to.equal(0);
    const after = run(['--import', 'tsx', 'scripts/token.ts', 'list', '--org', 'acme'], env);
    await after.exited;
    expect(after.stdout()).to.include(`${id}  revoked`);
    const unknown = run(['--import', 'tsx', 'scripts/token.ts', 'revoke', 'nope'], env);
    expect(await unknown.exited).to.equal(1);
  });

  it('the token script creates tokens with a role (admin by default) and refuses unknown roles', async () => {
    const env = { DATA_DIR: dir };
    const reader = run(['--import', 'tsx', 'scripts/token.ts', 'create', '--org', 'acme', '--role', 'read'], env);
    expect(await reader.exited, reader.stderr()).to.equal(0);
    expect(reader.stdout()).to.match(/^token \S+ for organisation "acme", role read:/m);
    const admin = run(['--import', 'tsx', 'scripts/token.ts', 'create', '--org', 'acme'], env);
    expect(await admin.exited, admin.stderr()).to.equal(0);
    expect(admin.stdout()).to.match(/role admin:/);
    const listed = run(['--import', 'tsx', 'scripts/token.ts', 'list', '--org', 'acme'], env);
    expect(await listed.exited).to.equal(0);
    expect(listed.stdout()).to.match(/ {2}active {2}read {2}created/);
    expect(listed.stdout()).to.match(/ {2}active {2}admin {2}created/);
    const bad = run(['--import', 'tsx', 'scripts/token.ts', 'create', '--role', 'owner'], env);
    expect(await bad.exited).to.equal(2);
    expect(bad.stderr()).to.include('--role must be one of read, write, admin');
  });
});
