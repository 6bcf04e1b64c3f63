// The worker pools of docker-compose.yml, read as the processes read their environment: each
// pool's variables are valid, and together the pools serve every job queue exactly once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { loadConfig } from '../../../shared/composition/config.js';
import { serviceJobs } from '../../../shared/composition/jobs.js';

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
}

const root = path.resolve(import.meta.dirname, '../../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, ComposeService> };
const pools = Object.entries(compose.services).filter(([, s]) => s.command?.includes('dist/workers/main.js'));

describe('docker-compose.yml worker pools', () => {
  it('runs two pools whose variables a worker accepts, serving every queue once between them', () => {
    expect(pools.map(([name]) => name)).to.deep.equal(['worker', 'worker-ingest']);
    const served = pools.flatMap(([name, service]) => {
      const env = Object.fromEntries(Object.entries(service.environment ?? {}).filter(([key]) => key.startsWith('WORKER_')));
      return loadConfig(env).workerQueues.map((q) => `${q.name}@${name}`);
    });
    const queues = served.map((s) => s.split('@')[0]);
    expect([...queues].sort()).to.deep.equal(Object.keys(serviceJobs(loadConfig({}))).sort());
    expect(served).to.include('flaky-ingest@worker-ingest');
  });
});
