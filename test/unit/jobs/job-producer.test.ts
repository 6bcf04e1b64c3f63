// The producer against a real Redis: one job, and many of one name in one round trip, each with
// the options its catalogue entry gives it.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { JobProducer } from '../../../shared/platform/jobs/producer.js';
import { retentionOf } from '../../../shared/platform/jobs/job-catalogue.js';
import { loadConfig } from '../../../shared/composition/config.js';
import { serviceJobs, type ServiceJobs } from '../../../shared/composition/jobs.js';

describe('job producer', () => {
  let redis: Redis;
  let jobs: JobProducer<ServiceJobs>;

  beforeEach(() => {
    const url = process.env.REDIS_URL;
    if (!url) throw new Error('REDIS_URL is not set: run the tests with `npm test`, which starts redis-server');
    redis = new Redis(url, { maxRetriesPerRequest: null });
    // A prefix of its own: nothing else sees these jobs, and nothing else's jobs are counted.
    jobs = new JobProducer({ catalogue: serviceJobs(loadConfig({})), connection: redis, prefix: `test-producer-${randomUUID()}` });
  });
  afterEach(async () => {
    await jobs.queue('publish-event').obliterate({ force: true });
    await jobs.close();
    await redis.quit();
  });

  it('enqueues many jobs of one name at once, with the catalogue’s attempts and retention', async () => {
    await jobs.enqueueMany('publish-event', [{ eventId: 'e1' }, { eventId: 'e2' }, { eventId: 'e3' }]);
    const queued = await jobs.queue('publish-event').getJobs(['waiting']);
    expect(queued.map((j) => j.data.eventId as string).sort()).to.deep.equal(['e1', 'e2', 'e3']);
    const spec = jobs.catalogue['publish-event'];
    const { removeOnComplete, removeOnFail } = retentionOf(spec);
    for (const j of queued) {
      expect([j.opts.attempts, j.opts.removeOnComplete, j.opts.removeOnFail]).to.deep.equal([spec.attempts, removeOnComplete, removeOnFail]);
      expect(j.opts.backoff).to.deep.equal({ type: 'exponential', delay: spec.backoffMs });
    }
    await jobs.enqueueMany('publish-event', []);
    expect(await jobs.queue('publish-event').getJobCountByTypes('waiting')).to.equal(3);
  });

  it('enqueues one job as before', async () => {
    await jobs.enqueue('publish-event', { eventId: 'one' });
    const [job] = await jobs.queue('publish-event').getJobs(['waiting']);
    expect(job?.data).to.deep.equal({ eventId: 'one' });
  });
});
