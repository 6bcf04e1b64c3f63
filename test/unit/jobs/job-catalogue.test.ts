import { Writable } from 'node:stream';
import { expect } from 'chai';
import { UnrecoverableError, type Job } from 'bullmq';
import Type from 'typebox';
import {
  joinCatalogues,
  jobSpec,
  retentionOf,
  type JobProcessor,
  type PayloadOf,
  type ProcessorRegistry,
} from '../../../shared/platform/jobs/job-catalogue.js';
import { JOB_FAILURE_ACTIONS, jobFailureAction } from '../../../shared/platform/jobs/job-failures.js';
import { AppError, conflict, invalid, notFound, unavailable } from '../../../shared/platform/errors.js';
import { guardedProcessor } from '../../../workers/job-processor.js';
import { createLogger } from '../../../shared/platform/logging.js';
import type { JobProducer } from '../../../shared/platform/jobs/producer.js';
import { loadConfig } from '../../../shared/composition/config.js';
import { serviceJobs, type ServiceJobs } from '../../../shared/composition/jobs.js';

const JOB_SPECS = serviceJobs(loadConfig({}));
const JOB_NAMES = Object.keys(JOB_SPECS) as (keyof ServiceJobs)[];

describe('job catalogue', () => {
  it('gives every job a spec with attempts, retention and a concurrency', () => {
    expect(JOB_NAMES).to.have.members([
      'plan',
      'timeout',
      'wake',
      'status-watch',
      'sync',
      'reconcile',
      'merge-windows',
      'queue-objectives',
      'queue-digests',
      'flaky-ingest',
      'flaky-refresh',
      'github-webhook',
      'github-ci-results',
      'github-pr-feedback',
      'github-test-branch-prs',
      'publish-event',
      'deliver-webhook',
      'event-sweep',
    ]);
    for (const name of JOB_NAMES) {
      const spec = JOB_SPECS[name];
      expect(spec.attempts, name).to.be.at.least(1);
      expect(spec.concurrency, name).to.be.at.least(1);
      expect(retentionOf(spec).removeOnFail.count, name).to.be.greaterThan(0);
    }
  });

  it('deduplicates planning passes per merge queue and fixes the ids of delayed checks', () => {
    expect(JOB_SPECS.plan.deduplicateBy?.({ queueId: 'q1', why: 'a' })).to.equal(JOB_SPECS.plan.deduplicateBy?.({ queueId: 'q1', why: 'b' }));
    expect(JOB_SPECS.plan.deduplicateBy?.({ queueId: 'q1', why: 'a' })).not.to.equal(JOB_SPECS.plan.deduplicateBy?.({ queueId: 'q2', why: 'a' }));
    const t = { queueId: 'q1', testRunId: 'r1', deadlineAt: 1000 };
    expect(JOB_SPECS.timeout.jobId?.(t, 0)).to.equal('timeout-r1-1000');
    expect(JOB_SPECS.timeout.jobId?.({ ...t, deadlineAt: 2000 }, 0)).not.to.equal('timeout-r1-1000');
    expect(JOB_SPECS.wake.jobId?.({ queueId: 'q1', why: 'x' }, 5)).to.equal(JOB_SPECS.wake.jobId?.({ queueId: 'q1', why: 'y' }, 5));
  });

  it('deduplicates flaky ingestion per repository, whichever upload asked', () => {
    const dedup = JOB_SPECS['flaky-ingest'].deduplicateBy;
    expect(dedup?.({ repoId: 'r1', uploadId: 'u1' })).to.equal(dedup?.({ repoId: 'r1', uploadId: 'u2' }));
    expect(dedup?.({ repoId: 'r1', uploadId: 'u1' })).not.to.equal(dedup?.({ repoId: 'r2', uploadId: 'u1' }));
  });

  it('schedules exactly the periodic jobs, at the configured periods', () => {
    expect(JOB_NAMES.filter((n) => JOB_SPECS[n].everySeconds)).to.have.members([
      'sync',
      'reconcile',
      'merge-windows',
      'queue-objectives',
      'queue-digests',
      'flaky-refresh',
      'github-ci-results',
      'github-pr-feedback',
      'github-test-branch-prs',
      'event-sweep',
    ]);
    const config = loadConfig({ PROVIDER_POLL_SECONDS: '45', RECONCILE_SECONDS: '90', FLAKY_REFRESH_SECONDS: '600' });
    const jobs = serviceJobs(config);
    expect([
      jobs.sync.everySeconds,
      jobs.reconcile.everySeconds,
      jobs['flaky-refresh'].everySeconds,
      jobs['github-pr-feedback'].everySeconds,
      jobs['event-sweep'].everySeconds,
    ]).to.deep.equal([45, 90, 600, 45, 90]);
  });

  it('refuses to join two modules that name a job alike (one queue would serve two payloads)', () => {
    const a = { ping: jobSpec({ payload: Type.Object({ a: Type.String() }), attempts: 1, backoffMs: 0, concurrency: 1 }) };
    const b = { ping: jobSpec({ payload: Type.Object({ b: Type.Number() }), attempts: 1, backoffMs: 0, concurrency: 1 }), pong: a.ping };
    expect(() => joinCatalogues(a, b)).to.throw('job names used by two modules: ping');
    expect(Object.keys(joinCatalogues(a, { pong: a.ping }))).to.deep.equal(['ping', 'pong']);
  });

  it('types payloads and processors by job name (checked by the type-checker)', () => {
    const plan: JobProcessor<ServiceJobs, 'plan'> = async (job) => void job.data.queueId;
    // @ts-expect-error a timeout processor cannot serve the plan queue
    const wrong: ProcessorRegistry<ServiceJobs>['plan'] = async (job: Job<PayloadOf<ServiceJobs, 'timeout'>>) => void job.data.deadlineAt;
    const enqueueWrongPayload = (jobs: JobProducer<ServiceJobs>) =>
      // @ts-expect-error a plan job needs a queueId and a reason, not a test run
      jobs.enqueue('plan', { testRunId: 'r1' });
    expect([plan, wrong, enqueueWrongPayload]).to.have.length(3);
  });
});

describe('job failure table', () => {
  it('decides for every kind of domain error', () => {
    expect(Object.keys(JOB_FAILURE_ACTIONS)).to.have.length.greaterThan(0);
    expect(jobFailureAction(conflict('concurrent_update', 'lost a race'))).to.equal('retry');
    expect(jobFailureAction(unavailable('queue_unavailable', 'redis down'))).to.equal('retry');
    expect(jobFailureAction(invalid('bad', 'bad data'))).to.equal('give_up');
    expect(jobFailureAction(notFound('queue_not_found', 'deleted'))).to.equal('log');
    expect(jobFailureAction(new AppError('too_large', 'x', 'y'))).to.equal('give_up');
  });

  it('retries errors that are not domain errors (git, the database, a bug)', () => {
    expect(jobFailureAction(new Error('git exited 128'))).to.equal('retry');
    expect(jobFailureAction('a string')).to.equal('retry');
  });
});

describe('a processor as workers run it', () => {
  let lines: Record<string, unknown>[];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(
        ...chunk
          .toString()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      );
      done();
    },
  });
  const logger = createLogger('info', 'test', sink);
  beforeEach(() => {
    lines = [];
  });
  const job = (data: unknown) => ({ id: '1', data }) as Job<unknown>;
  const planJob = job({ queueId: 'q1', why: 'test', requestId: 'req-1' });
  const guarded = (processor: JobProcessor<ServiceJobs, 'plan'>) => guardedProcessor<ServiceJobs, 'plan'>('plan', JOB_SPECS.plan, processor, logger);
  const failingWith = (err: unknown) =>
    guarded(async () => {
      throw err;
    });

  it('receives the payload it was enqueued with (the request id besides)', async () => {
    const seen: unknown[] = [];
    await guarded(async (j) => void seen.push(j.data))(planJob);
    expect(seen).to.deep.equal([{ queueId: 'q1', why: 'test', requestId: 'req-1' }]);
  });

  it('gives up at once, without running the processor, on a payload its schema refuses', async () => {
    let ran = false;
    const err = await guarded(async () => {
      ran = true;
    })(job({ queueId: '', why: 3 })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(ran).to.equal(false);
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect((err as Error).message).to.match(/^the payload of plan does not match its schema: /);
    expect(lines.find((l) => l.msg === 'job payload does not match its schema; given up')).to.include({ queue: 'plan', jobId: '1' });
  });

  it('completes a job whose subject is gone, and says so in the log', async () => {
    await failingWith(notFound('queue_not_found', 'deleted'))(planJob);
    expect(lines.find((l) => l.msg === 'job has nothing left to do')).to.include({ queue: 'plan', jobId: '1', err: 'deleted', level: 40 });
  });

  it('fails at once, without retries, on invalid data', async () => {
    const err = await failingWith(invalid('bad', 'bad data'))(planJob).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect((err as Error).message).to.equal('bad data');
  });

  it('rethrows what may pass on a retry', async () => {
    const lost = conflict('concurrent_update', 'lost a race');
    const err = await failingWith(lost)(planJob).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.equal(lost);
  });
});
