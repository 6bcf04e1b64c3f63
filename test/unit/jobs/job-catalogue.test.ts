import { expect } from 'chai';
import { UnrecoverableError, type Job } from 'bullmq';
import { JOB_NAMES, JOB_SPECS, retentionOf, type JobPayloads } from '../../../shared/jobs/job-catalogue.js';
import { JOB_FAILURE_ACTIONS, jobFailureAction } from '../../../shared/jobs/job-failures.js';
import { AppError, conflict, invalid, notFound, unavailable } from '../../../shared/errors.js';
import { withFailurePolicy, type JobProcessor, type ProcessorRegistry } from '../../../workers/job-processor.js';
import { createLogger } from '../../../shared/logging.js';
import type { JobProducer } from '../../../shared/jobs/producer.js';

describe('job catalogue', () => {
  it('gives every job a spec with attempts, retention and a concurrency', () => {
    expect(JOB_NAMES).to.have.members(['plan', 'timeout', 'wake', 'status-watch', 'sync', 'reconcile', 'flaky-ingest', 'flaky-refresh', 'github-webhook', 'github-ci-results', 'github-pr-feedback', 'github-test-branch-prs', 'publish-event', 'deliver-webhook', 'event-sweep']);
    for (const name of JOB_NAMES) {
      const spec = JOB_SPECS[name];
      expect(spec.attempts, name).to.be.at.least(1);
      expect(spec.concurrency, name).to.be.at.least(1);
      expect(retentionOf(name).removeOnFail.count, name).to.be.greaterThan(0);
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

  it('schedules exactly the periodic jobs', () => {
    expect(JOB_NAMES.filter((n) => JOB_SPECS[n].every)).to.have.members(['sync', 'reconcile', 'flaky-refresh', 'github-ci-results', 'github-pr-feedback', 'github-test-branch-prs', 'event-sweep']);
  });

  it('types payloads and processors by job name (checked by the type-checker)', () => {
    const plan: JobProcessor<'plan'> = async (job) => void job.data.queueId;
    // @ts-expect-error a timeout processor cannot serve the plan queue
    const wrong: ProcessorRegistry['plan'] = async (job: Job<JobPayloads['timeout']>) => void job.data.deadlineAt;
    const enqueueWrongPayload = (jobs: JobProducer) =>
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

describe('withFailurePolicy', () => {
  const logger = createLogger('silent');
  const job = { id: '1', data: { queueId: 'q1', why: 'test' } } as Job<JobPayloads['plan']>;
  const failingWith = (err: unknown) =>
    withFailurePolicy('plan', async () => {
      throw err;
    }, logger);

  it('completes a job whose subject is gone', async () => {
    await failingWith(notFound('queue_not_found', 'deleted'))(job);
  });

  it('fails at once, without retries, on invalid data', async () => {
    const err = await failingWith(invalid('bad', 'bad data'))(job).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect((err as Error).message).to.equal('bad data');
  });

  it('rethrows what may pass on a retry', async () => {
    const lost = conflict('concurrent_update', 'lost a race');
    const err = await failingWith(lost)(job).then(() => null, (e: unknown) => e);
    expect(err).to.equal(lost);
  });
});
