// GET /metrics on the operator listener: process, HTTP, database and BullMQ metrics of a real
// service (workers on the real Redis), checked with promtool and an independent parser; and the
// separation from the tenant API.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Queue, Worker } from 'bullmq';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { waitFor } from '../../scripts/lib/wait.js';
import {
  gaugeValue,
  histogramValue,
  parseExposition,
  promtoolAvailable,
  promtoolCheck,
  PROMTOOL_MISSING,
  sampleValue,
  type Exposition,
} from '../helpers/prometheus-text.js';
import { startOperatorServer, type OperatorServer } from '../../shared/platform/metrics/operator-server.js';
import { startConfiguredOperatorServer } from '../../shared/composition/operator-endpoint.js';
import { JOB_STATES, observeWorker } from '../../shared/platform/metrics/job-metrics.js';
import { OperatorMetrics } from '../../shared/platform/metrics/operator-metrics.js';
import { createRedis } from '../../shared/platform/jobs/connection.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const ref = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

describe('operator metrics endpoint', function () {
  this.timeout(30_000);
  let svc: TestService;
  let op: OperatorServer;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
    // OPERATOR_PORT is 0 in tests: the listener takes a free port and tells which.
    op = await startOperatorServer({ ...svc.ctx, port: 0, host: svc.ctx.config.operatorHost });
  });
  afterEach(async () => {
    await svc.close();
  });

  async function scrape(): Promise<{ text: string; exposition: Exposition }> {
    const res = await fetch(`${op.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal(CONTENT_TYPE);
    const text = await res.text();
    return { text, exposition: parseExposition(text) };
  }

  it('serves process, HTTP, database and job metrics', async () => {
    expect(op.port).to.be.greaterThan(0);
    expect((await svc.post('/getQueue', ref)).status).to.equal(404);
    expect((await svc.raw('GET', '/healthz')).status).to.equal(200);
    expect((await svc.raw('GET', '/no/such/path?x=1')).status).to.equal(404);
    expect((await svc.raw('GET', '/v1/getMergeQueueMetrics', { headers: { 'x-api-token': svc.token } })).status).to.equal(200);
    // A planning pass for a queue that does not exist completes without doing anything.
    await svc.ctx.mergeQueue.scheduler.requestPlan(randomUUID(), 'metrics test');

    // Job counts are read from Redis before the rest is rendered: wait until both show the job.
    const { exposition: e } = await waitFor('a completed plan job in the metrics', async () => {
      const s = await scrape();
      const counted = (gaugeValue(s.exposition, 'openmq_jobs_completed_total', { queue: 'plan' }) ?? 0) >= 1;
      const inRedis = (gaugeValue(s.exposition, 'openmq_bullmq_jobs', { queue: 'plan', state: 'completed' }) ?? 0) >= 1;
      return counted && inRedis ? s : undefined;
    });

    // Process metrics (prom-client defaults).
    expect(e.families.get('process_cpu_seconds_total')?.type).to.equal('COUNTER');
    expect(e.families.get('nodejs_heap_size_used_bytes')?.type).to.equal('GAUGE');
    expect(e.families.get('nodejs_eventloop_lag_seconds')?.type).to.equal('GAUGE');

    // HTTP: counts and latency by route template and status; unknown paths share one label.
    const getQueue404 = { method: 'POST', route: '/v1/getQueue', status: '404' };
    expect(gaugeValue(e, 'openmq_http_requests_total', getQueue404)).to.equal(1);
    expect(histogramValue(e, 'openmq_http_request_duration_seconds', getQueue404)?.count).to.equal(1);
    expect(gaugeValue(e, 'openmq_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).to.equal(1);
    expect(gaugeValue(e, 'openmq_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
    expect(gaugeValue(e, 'openmq_http_requests_total', { method: 'GET', route: '/v1/getMergeQueueMetrics', status: '200' })).to.equal(1);
    const routes = (e.samples.get('openmq_http_requests_total') ?? []).map((m) => m.labels?.route);
    expect(routes).not.to.include('/no/such/path');

    // Database: latency per collection and operation (the 404 looked the queue up).
    expect(histogramValue(e, 'openmq_db_operation_duration_seconds', { collection: 'queues', operation: 'findOne' })?.count).to.be.greaterThan(0);
    expect(histogramValue(e, 'openmq_db_operation_duration_seconds', { collection: 'entries', operation: 'createIndexes' })?.count).to.equal(1);
    expect(e.families.get('openmq_db_operation_errors_total')?.type).to.equal('COUNTER');

    // Jobs: counts of every queue in every state, read from Redis; durations of processed jobs.
    expect(gaugeValue(e, 'openmq_bullmq_up', {})).to.equal(1);
    for (const queue of Object.keys(svc.ctx.jobs.catalogue)) {
      for (const state of JOB_STATES) {
        expect(gaugeValue(e, 'openmq_bullmq_jobs', { queue, state }), `${queue} ${state}`).to.be.a('number');
      }
    }
    expect(gaugeValue(e, 'openmq_bullmq_jobs', { queue: 'plan', state: 'completed' })).to.be.greaterThan(0);
    expect(histogramValue(e, 'openmq_job_duration_seconds', { queue: 'plan', outcome: 'completed' })?.count).to.be.greaterThan(0);
  });

  it('passes promtool check metrics without findings', async function () {
    if (!promtoolAvailable()) {
      if (process.env.CI) throw new Error(PROMTOOL_MISSING);
      console.log(`      skipped: ${PROMTOOL_MISSING}`);
      this.skip();
    }
    await svc.post('/getQueue', ref);
    await svc.ctx.mergeQueue.scheduler.requestPlan(randomUUID(), 'metrics test');
    const { text } = await waitFor('a processed job', async () => {
      const s = await scrape();
      return (gaugeValue(s.exposition, 'openmq_jobs_completed_total', { queue: 'plan' }) ?? 0) >= 1 ? s : undefined;
    });
    expect(promtoolCheck(text)).to.deep.equal({ status: 0, findings: [] });
  });

  it('is not part of the tenant API, and answers nothing but /metrics and /healthz', async () => {
    // The API port has no /metrics, whatever the token.
    const api = await svc.raw('GET', '/metrics', { headers: { 'x-api-token': svc.token } });
    expect(api.status).to.equal(404);
    // The operator port serves no API route.
    expect((await fetch(`${op.url}/v1/getMergeQueueMetrics`, { headers: { 'x-api-token': svc.token } })).status).to.equal(404);
    expect((await fetch(`${op.url}/metrics`, { method: 'POST' })).status).to.equal(405);
    const head = await fetch(`${op.url}/metrics`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    expect((await fetch(`${op.url}/healthz`)).status).to.equal(200);
  });

  it('is not started by the entry points when OPERATOR_PORT is 0', async () => {
    expect(svc.ctx.config.operatorPort).to.equal(0);
    expect(await startConfiguredOperatorServer(svc.ctx)).to.equal(null);
  });

  it('reports the job counts as unavailable, not an error, when Redis cannot be read', async () => {
    const metrics = new OperatorMetrics();
    metrics.setJobCountsReader(() => Promise.reject(new Error('redis down')));
    const e = parseExposition(await metrics.render());
    expect(sampleValue(e, 'openmq_bullmq_up', {})).to.equal(0);
    expect(e.samples.get('openmq_bullmq_jobs') ?? []).to.deep.equal([]);
  });
});

describe('job metrics from worker events', function () {
  this.timeout(30_000);

  it('counts completed and failed jobs and times them by queue and outcome', async () => {
    const redisUrl = process.env.REDIS_URL as string;
    const connection = createRedis(redisUrl, 'worker');
    const prefix = `{t-${randomUUID().slice(0, 8)}}`;
    const name = 'metrics-probe';
    const queue = new Queue(name, { connection, prefix });
    const worker = new Worker(
      name,
      async (job) => {
        if ((job.data as { fail: boolean }).fail) throw new Error('the probe fails on purpose');
      },
      { connection, prefix },
    );
    worker.on('error', () => undefined);
    const metrics = new OperatorMetrics();
    observeWorker(worker, name, metrics);
    try {
      await queue.add('ok', { fail: false });
      await queue.add('bad', { fail: true }, { attempts: 1 });
      await queue.add('ok', { fail: false });
      const e = await waitFor('three processed probe jobs', async () => {
        const ex = parseExposition(await metrics.render());
        const done = (gaugeValue(ex, 'openmq_jobs_completed_total', { queue: name }) ?? 0) + (gaugeValue(ex, 'openmq_jobs_failed_total', { queue: name }) ?? 0);
        return done === 3 ? ex : undefined;
      });
      expect(gaugeValue(e, 'openmq_jobs_completed_total', { queue: name })).to.equal(2);
      expect(gaugeValue(e, 'openmq_jobs_failed_total', { queue: name })).to.equal(1);
      expect(histogramValue(e, 'openmq_job_duration_seconds', { queue: name, outcome: 'completed' })?.count).to.equal(2);
      expect(histogramValue(e, 'openmq_job_duration_seconds', { queue: name, outcome: 'failed' })?.count).to.equal(1);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await connection.quit();
    }
  });
});

describe('a worker process serving some of the queues', function () {
  this.timeout(30_000);
  let svc: TestService;
  let op: OperatorServer;

  before(async () => {
    svc = await startTestService({ startWorkers: true, env: { WORKER_EXCLUDE_QUEUES: 'plan,flaky-ingest', WORKER_CONCURRENCY: 'deliver-webhook=32' } });
    op = await startOperatorServer({ ...svc.ctx, port: 0, host: svc.ctx.config.operatorHost });
  });
  after(() => svc.close());

  it('runs workers for its queues only, and its metrics say which, at what concurrency', async () => {
    const connection = createRedis(process.env.REDIS_URL as string, 'producer');
    const prefix = svc.ctx.config.bullPrefix;
    try {
      const workersOf = async (name: string) => {
        const q = new Queue(name, { connection, prefix });
        try {
          return await q.getWorkersCount();
        } finally {
          await q.close();
        }
      };
      expect(await workersOf('plan')).to.equal(0);
      expect(await workersOf('flaky-ingest')).to.equal(0);
      expect(await workersOf('deliver-webhook')).to.equal(1);
      expect(await workersOf('reconcile')).to.equal(1);
    } finally {
      connection.disconnect();
    }

    // A planning request waits for a process that serves plan.
    await svc.ctx.mergeQueue.scheduler.requestPlan(randomUUID(), 'metrics test');
    const e = await waitFor('the waiting plan job in the metrics', async () => {
      const s = parseExposition(await (await fetch(`${op.url}/metrics`)).text());
      return (gaugeValue(s, 'openmq_bullmq_jobs', { queue: 'plan', state: 'waiting' }) ?? 0) >= 1 ? s : undefined;
    });
    const served = Object.fromEntries((e.samples.get('openmq_worker_queue_concurrency') ?? []).map((m) => [m.labels?.queue, Number(m.value)]));
    const catalogue = svc.ctx.jobs.catalogue;
    const expected = Object.fromEntries(
      Object.entries(catalogue)
        .filter(([name]) => name !== 'plan' && name !== 'flaky-ingest')
        .map(([name, spec]) => [name, name === 'deliver-webhook' ? 32 : spec.concurrency]),
    );
    expect(served).to.deep.equal(expected);
  });
});
