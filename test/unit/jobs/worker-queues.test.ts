// The queues a worker process serves, from WORKER_QUEUES, WORKER_EXCLUDE_QUEUES and
// WORKER_CONCURRENCY, through loadConfig as the entry points read them.
import { expect } from 'chai';
import { loadConfig } from '../../../shared/composition/config.js';
import { configRefusal } from '../../helpers/config-refusal.js';
import { serviceJobs } from '../../../shared/composition/jobs.js';

const CATALOGUE = serviceJobs(loadConfig({}));
const ALL = Object.keys(CATALOGUE);

const served = (env: Record<string, string>) => loadConfig(env).workerQueues;

describe('worker queues from the environment', () => {
  it('serves every queue at the catalogue concurrency by default', () => {
    expect(served({})).to.deep.equal(ALL.map((name) => ({ name, concurrency: CATALOGUE[name as keyof typeof CATALOGUE].concurrency })));
  });

  it('serves the named queues, minus the excluded ones, with concurrency overrides', () => {
    expect(served({ WORKER_QUEUES: 'flaky-ingest, deliver-webhook', WORKER_CONCURRENCY: 'flaky-ingest=2' })).to.deep.equal([
      { name: 'flaky-ingest', concurrency: 2 },
      { name: 'deliver-webhook', concurrency: CATALOGUE['deliver-webhook'].concurrency },
    ]);
    const general = served({ WORKER_EXCLUDE_QUEUES: 'flaky-ingest,deliver-webhook', WORKER_CONCURRENCY: 'plan=16' });
    expect(general.map((q) => q.name)).to.deep.equal(ALL.filter((n) => n !== 'flaky-ingest' && n !== 'deliver-webhook'));
    expect(general.find((q) => q.name === 'plan')?.concurrency).to.equal(16);
  });

  it('stops at start on an unknown name, naming it and the known queues', () => {
    expect(configRefusal({ WORKER_QUEUES: 'flaky-ingest,flakey-ingest' })).to.match(
      /^invalid configuration — WORKER_QUEUES: unknown flakey-ingest \(known queues: plan, /,
    );
    expect(configRefusal({ WORKER_EXCLUDE_QUEUES: 'webhooks' })).to.include('WORKER_EXCLUDE_QUEUES: unknown webhooks');
    expect(configRefusal({ WORKER_CONCURRENCY: 'ingest=2' })).to.include('WORKER_CONCURRENCY: unknown ingest');
  });

  it('refuses bad values, and settings that would be ignored', () => {
    for (const value of ['plan', 'plan=0', 'plan=-1', 'plan=1.5', `plan=${257}`, 'plan=two']) {
      expect(configRefusal({ WORKER_CONCURRENCY: value }), value).to.include(`WORKER_CONCURRENCY: "${value}" must be queue=n`);
    }
    expect(configRefusal({ WORKER_CONCURRENCY: 'plan=2,plan=3' })).to.include('plan is given twice');
    expect(configRefusal({ WORKER_QUEUES: 'plan', WORKER_CONCURRENCY: 'flaky-ingest=2' })).to.include('flaky-ingest is not served by this process');
    expect(configRefusal({ WORKER_QUEUES: 'plan', WORKER_EXCLUDE_QUEUES: 'plan' })).to.include('plan also in WORKER_QUEUES');
    expect(configRefusal({ WORKER_QUEUES: ' , ' })).to.include('WORKER_QUEUES: name at least one queue');
    expect(configRefusal({ WORKER_EXCLUDE_QUEUES: ALL.join(',') })).to.include('excludes every queue');
  });

  it('reports every problem in one line', () => {
    const message = configRefusal({ WORKER_QUEUES: 'nope', WORKER_CONCURRENCY: 'plan=0' });
    expect(message.split('\n')).to.have.length(1);
    expect(message).to.include('WORKER_QUEUES').and.to.include('WORKER_CONCURRENCY');
  });
});
