// What can be checked of the scale-out benchmark without docker (it cannot run here): its command
// line, and that the compose files it starts make the stack it describes — read as compose reads
// them, with the YAML parser, the override merged by service and by mount target.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { COMPOSE_FILES, COMPOSE_PROJECT, composeArgs, composeEnvironment, parseScaleOutArgs, UsageError } from '../../../scripts/lib/scale-out-options.js';

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: Array<string | { type: string; source: string; target: string }>;
  ports?: string[];
  container_name?: string;
  user?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const [baseFile, benchFile] = COMPOSE_FILES;
const base = parse(read(baseFile)) as ComposeFile;
const bench = parse(read(benchFile)) as ComposeFile;

const mountTarget = (v: string | { target: string }) => (typeof v === 'string' ? v.split(':')[1] : v.target);

describe('scale-out benchmark: command line', () => {
  it('defaults to the compose stack with two workers', () => {
    expect(parseScaleOutArgs([])).to.deep.equal({
      target: 'compose',
      workers: 2,
      runs: 3,
      pullRequests: 200,
      ciSeconds: 20,
      concurrency: 8,
      getQueueConnections: 10,
      timeoutMinutes: 30,
      keep: false,
      apiUrl: 'http://127.0.0.1:8080',
    });
  });

  it('reads every option', () => {
    const opts = parseScaleOutArgs([
      '--workers',
      '4',
      '--runs',
      '5',
      '--pull-requests',
      '1000',
      '--ci-seconds',
      '0',
      '--concurrency',
      '16',
      '--get-queue-connections',
      '20',
      '--timeout-minutes',
      '60',
      '--keep',
      '--api-url',
      'http://127.0.0.2:8080',
    ]);
    expect(opts).to.deep.include({
      target: 'compose',
      workers: 4,
      runs: 5,
      pullRequests: 1000,
      ciSeconds: 0,
      concurrency: 16,
      getQueueConnections: 20,
      timeoutMinutes: 60,
      keep: true,
      apiUrl: 'http://127.0.0.2:8080',
    });
    expect(parseScaleOutArgs(['--embedded', '--pull-requests', '20']).target).to.equal('embedded');
  });

  it('refuses what it cannot do, naming the option', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--workers', '0'], /--workers must be an integer from 1 to 64/],
      [['--runs', '0'], /--runs must be an integer from 1 to 100/],
      [['--pull-requests', '1.5'], /--pull-requests must be an integer/],
      [['--ci-seconds', '-1'], /--ci-seconds/],
      [['--concurrency', 'many'], /--concurrency must be an integer from 1 to 1000 \(got "many"\)/],
      [['--api-url', 'not a url'], /--api-url must be a URL/],
      [['--embedded', '--workers', '2'], /--workers applies to the docker compose stack/],
      [['--embedded', '--keep'], /--keep applies to the docker compose stack/],
      [['--embedded', '--api-url', 'http://x'], /--api-url applies to the docker compose stack/],
      [['--worker', '2'], /Unknown option '--worker'/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseScaleOutArgs(argv), argv.join(' ')).to.throw(UsageError, message);
    }
  });

  it('starts the stack from both compose files, waiting for health, with the asked number of workers; removes it with its volumes', () => {
    for (const file of COMPOSE_FILES) expect(existsSync(path.join(root, file)), file).to.equal(true);
    const files = ['-f', 'docker-compose.yml', '-f', 'docker-compose.bench.yml', '-p', COMPOSE_PROJECT];
    expect(composeArgs('up', { workers: 3 })).to.deep.equal(['compose', ...files, 'up', '-d', '--build', '--wait', '--scale', 'worker=3']);
    expect(composeArgs('down', { workers: 3 })).to.deep.equal(['compose', ...files, 'down', '-v']);
  });
});

describe('scale-out benchmark: compose files', () => {
  it('the deployment runs the API and a scalable worker against one MongoDB and one Redis', () => {
    const { api, worker, mongo, redis } = base.services;
    expect(mongo, 'mongo').to.not.equal(undefined);
    expect(redis, 'redis').to.not.equal(undefined);
    expect(api?.command).to.deep.equal(['node', 'dist/api/server.js']);
    expect(worker?.command).to.deep.equal(['node', 'dist/workers/main.js']);
    for (const key of ['MONGO_URL', 'REDIS_URL', 'LOCAL_GIT_ROOT']) expect(worker?.environment?.[key], key).to.equal(api?.environment?.[key]);
    // Several replicas of a service cannot share a host port or a container name.
    expect(worker?.ports).to.equal(undefined);
    expect(worker?.container_name).to.equal(undefined);
  });

  it('the override only changes services of the deployment, and replaces their git volume by the benchmark directory', () => {
    expect(Object.keys(bench.services).sort()).to.deep.equal(['api', 'worker']);
    for (const [name, service] of Object.entries(bench.services)) {
      const own = base.services[name];
      expect(own, name).to.not.equal(undefined);
      const gitRoot = own?.environment?.LOCAL_GIT_ROOT;
      // Compose merges volumes by their target: the same target replaces the deployment's volume.
      expect((own?.volumes ?? []).map(mountTarget), name).to.include(gitRoot);
      expect(service.volumes, name).to.deep.equal([{ type: 'bind', source: '${BENCH_GIT_ROOT:?set by scripts/bench-scale-out.ts}', target: gitRoot }]);
      expect(service.user, name).to.match(/^\$\{BENCH_UID:\?[^}]*\}:\$\{BENCH_GID:\?[^}]*\}$/);
    }
    expect(bench.services.api?.environment?.API_TOKEN).to.match(/^\$\{BENCH_API_TOKEN:\?/);
  });

  it('interpolates exactly the variables the script sets', () => {
    const used = new Set([...read(benchFile).matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]));
    const set = composeEnvironment({ token: 't'.repeat(48), gitRoot: '/tmp/git', uid: 1000, gid: 1000 });
    expect([...used].sort()).to.deep.equal(Object.keys(set).sort());
    expect(set.BENCH_API_TOKEN).to.have.length.within(16, 256);
  });
});
