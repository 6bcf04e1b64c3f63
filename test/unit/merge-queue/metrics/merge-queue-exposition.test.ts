// Rendering of the merge-queue series: exact text for a known series, zeros for idle queues,
// label values escaped (branch names may contain quotes and backslashes).
import { expect } from 'chai';
import { emptySeries } from '../../../../shared/merge-queue/domain/metrics/index.js';
import { renderMergeQueueMetrics, MERGE_QUEUE_METRICS_CONTENT_TYPE } from '../../../../shared/merge-queue/metrics/merge-queue-exposition.js';
import { gaugeValue, histogramValue, parseExposition } from '../../../helpers/prometheus-text.js';

describe('metrics: merge-queue exposition', () => {
  it('uses the Prometheus text format 0.0.4 content type', () => {
    expect(MERGE_QUEUE_METRICS_CONTENT_TYPE).to.equal('text/plain; version=0.0.4; charset=utf-8');
  });

  it('renders a histogram with the compatible buckets, cumulative, with sum and count', async () => {
    const s = emptySeries({ repo: 'acme/app', branch: 'main', queue_type: 'main' });
    s.waitSeconds.push(30, 60, 61, 7200, 9000);
    const text = await renderMergeQueueMetrics([s]);
    const l = 'repo="acme/app",branch="main",queue_type="main"';
    const lines = text.split('\n').filter((x) => x.startsWith('mq_pr_wait_duration_1h_seconds'));
    expect(lines).to.deep.equal([
      `mq_pr_wait_duration_1h_seconds_bucket{le="60",${l}} 2`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="300",${l}} 3`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="600",${l}} 3`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="900",${l}} 3`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="1800",${l}} 3`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="3600",${l}} 3`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="5400",${l}} 3`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="7200",${l}} 4`,
      `mq_pr_wait_duration_1h_seconds_bucket{le="+Inf",${l}} 5`,
      `mq_pr_wait_duration_1h_seconds_sum{${l}} 16351`,
      `mq_pr_wait_duration_1h_seconds_count{${l}} 5`,
    ]);
    expect(text).to.include('# TYPE mq_pr_conclusions_1h_total gauge');
    expect(text).to.include('# TYPE mq_pr_restarts_1h_total gauge');
    expect(text).to.include('# TYPE mq_pr_time_in_queue_1h_seconds histogram');
    for (const c of ['merged', 'failed', 'cancelled'])
      expect(text).to.include(`mq_pr_conclusions_1h_total{repo="acme/app",branch="main",queue_type="main",conclusion="${c}"} 0`);
  });

  it('escapes label values', async () => {
    const branch = 'feat/"quoted"\\slash';
    const s = emptySeries({ repo: 'acme/app', branch, queue_type: 'bisection' });
    s.depth = 3;
    s.testSeconds.push(100);
    const e = parseExposition(await renderMergeQueueMetrics([s]));
    expect(gaugeValue(e, 'mq_depth_current', { repo: 'acme/app', branch, queue_type: 'bisection' })).to.equal(3);
    expect(histogramValue(e, 'mq_pr_test_duration_1h_seconds', { repo: 'acme/app', branch, queue_type: 'bisection' })?.count).to.equal(1);
  });
});
