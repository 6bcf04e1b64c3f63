// The GitHub Actions scale-out job cannot run here (no MongoDB, no container engine); what can be
// checked is that it is the job docs/operations.md describes: MongoDB as a replica set and Redis
// beside it, and a command line the crash script accepts for the API and three worker processes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { parseCrashArgs } from '../../../scripts/lib/scale-out-crash.js';

interface Step {
  uses?: string;
  run?: string;
}
interface Job {
  services?: Record<string, { image: string }>;
  env?: Record<string, string>;
  steps: Step[];
}

const root = path.resolve(import.meta.dirname, '../../..');
const workflow = parse(readFileSync(path.join(root, '.github/workflows/ci.yml'), 'utf8')) as { jobs: Record<string, Job> };

describe('the workflow scale-out job', () => {
  const job = workflow.jobs['scale-out']!;

  it('has MongoDB as a replica set and Redis', () => {
    expect(job.steps.map((s) => s.uses)).to.include('./.github/actions/mongo-replica-set');
    expect(job.env?.MONGO_URL).to.match(/^mongodb:\/\/localhost:27017\/[\w-]+\?replicaSet=rs0$/);
    expect(job.services?.redis?.image).to.match(/^redis:/);
    expect(job.env?.REDIS_URL).to.equal('redis://localhost:6379');
  });

  it('runs the API and three workers, one killed, with a command line the script accepts', () => {
    const run = job.steps.map((s) => s.run ?? '').find((r) => r.includes('scripts/scale-out-crash.ts'));
    expect(run).to.be.a('string');
    const argv = run!.split(/\s+/).slice(run!.split(/\s+/).indexOf('scripts/scale-out-crash.ts') + 1);
    expect(parseCrashArgs(argv)).to.include({ target: 'processes', workers: 3 });
  });

  it('refuses a command line that names no target, with the usage', () => {
    expect(() => parseCrashArgs(['--workers', '3'])).to.throw(/^choose one of --processes and --embedded\nusage: npx tsx scripts\/scale-out-crash.ts/);
  });
});
