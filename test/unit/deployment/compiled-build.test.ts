// What the production image runs: `npm run build`'s TypeScript output, with production dependencies
// only. The compiled entry points must not need tsx or TypeScript and must start with the files laid
// out as the image lays them out (a module that read package.json relative to its source position
// once stopped every compiled entry point at start), and the `openmq` bin must run the compiled CLI
// where the sources are absent. Built into node_modules/.cache so the compiled files
// resolve the project's packages as dist/ does.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { spawnNode } from '../../../scripts/lib/captured-process.js';
import { startRedis } from '../../../scripts/lib/redis-server.mjs';
import { printedUrl } from '../../../scripts/lib/service-process.js';

const root = path.resolve(import.meta.dirname, '../../..');
const work = path.join(root, 'node_modules', '.cache', 'openmq-compiled-build-test');

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

function compiledFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, f));
}

describe('the compiled build', function () {
  this.timeout(180_000);

  before(() => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const tsc = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', path.join(work, 'dist')],
      {
        encoding: 'utf8',
      },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).to.equal(0);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('holds every entry point the image and its docs name', () => {
    for (const entry of ['api/server.js', 'workers/main.js', 'cli/main.js', 'scripts/token.js', 'scripts/backup.js', 'scripts/all-in-one.js']) {
      expect(compiledFiles(path.join(work, 'dist')), entry).to.include(path.join(work, 'dist', entry));
    }
  });

  it('imports neither tsx nor TypeScript, which production installs lack', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).to.not.include.members(['tsx', 'typescript']);
    const importing = compiledFiles(path.join(work, 'dist')).filter((f) =>
      /(?:from |import\()['"](?:tsx|typescript)(?:\/[^'"]*)?['"]/.test(readFileSync(f, 'utf8')),
    );
    expect(importing.map((f) => path.relative(work, f))).to.deep.equal([]);
  });

  describe('laid out as the image lays it out (package.json, dist/, the v2 contract; no sources)', () => {
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    before(() => {
      cpSync(path.join(root, 'package.json'), path.join(work, 'package.json'));
      cpSync(path.join(root, 'openapi/v2/contract.json'), path.join(work, 'openapi/v2/contract.json'));
    });

    it('the api and worker entry points load every module and refuse to start without MONGO_URL, in one line', () => {
      for (const [entry, name] of [
        ['dist/api/server.js', 'api'],
        ['dist/workers/main.js', 'worker'],
      ] as const) {
        const res = spawnSync(process.execPath, [path.join(work, entry)], { cwd: work, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
        expect(res.stderr, entry).to.match(new RegExp(`^${name}: MONGO_URL is required — `));
        expect(res.status, entry).to.equal(2);
      }
    });

    it('starts its replay threads from the compiled modules', () => {
      const script = [
        "import { PlayPool } from './dist/shared/merge-queue/simulation/play-pool.js';",
        "import { DEFAULT_SETTINGS } from './dist/shared/merge-queue/simulation/what-if.js';",
        'const pullRequests = Array.from({ length: 8 }, (_, i) => ({ arrivesAt: i * 5, breaks: false }));',
        'const history = { from: new Date(0), to: new Date(0), workload: { pullRequests, ciMinutes: [10], flakeRate: 0, seed: 1 }, pullRequestsSeen: 8, sampled: false, notes: [] };',
        'const pool = new PlayPool(1);',
        'const [outcome] = await pool.playAll(history, [DEFAULT_SETTINGS]);',
        'await pool.close();',
        'console.log(outcome.efficiency.merged);',
      ].join('\n');
      const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: work, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(res.stderr).to.equal('');
      expect(res.stdout.trim()).to.equal('8');
    });

    it('the all-in-one entry point serves the API, its document naming the package version', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'openmq-compiled-'));
      const redis = await startRedis({ dataDir: path.join(dataDir, 'redis') });
      const service = spawnNode([path.join(work, 'dist/scripts/all-in-one.js')], {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '',
          DATA_DIR: dataDir,
          REDIS_URL: redis.url,
          PORT: '0',
          OPERATOR_PORT: '0',
          API_TOKEN: 'compiled-build-token-0123456789',
          LOG_LEVEL: 'warn',
        },
      });
      try {
        const base = await printedUrl(service);
        const res = await fetch(`${base}/v1/openapi.json`);
        expect(res.status).to.equal(200);
        expect(((await res.json()) as { info: { version: string } }).info.version).to.equal(version);
      } finally {
        service.child.kill('SIGTERM');
        await service.exited;
        await redis.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  it('the openmq bin runs the compiled CLI where the sources are absent', () => {
    cpSync(path.join(root, 'cli/bin/openmq.mjs'), path.join(work, 'cli/bin/openmq.mjs'));
    const res = run([path.join(work, 'cli/bin/openmq.mjs'), '--help']);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^Usage: openmq /);
  });

  it('the openmq bin says how to build when there is neither source nor build', () => {
    const bare = path.join(work, 'bare');
    cpSync(path.join(root, 'cli/bin/openmq.mjs'), path.join(bare, 'cli/bin/openmq.mjs'));
    const res = run([path.join(bare, 'cli/bin/openmq.mjs'), '--help']);
    expect(res.status).to.equal(1);
    expect(res.stderr).to.equal('openmq: the CLI is not built here — run `npm run build` (or `npm ci` to run it from its sources)\n');
  });
});
