// The digest sender (docs/digests.md): every round it finds the queues whose digest period has
// ended since the last one went out, summarises the period from stored history — merges and time
// in queue, ejections with their verdicts, CI runs and their cost, the objectives measured over
// the period, the flaky tests that failed the queue's runs — and stores the period's end with its
// queue.digest event in one write, so each digest goes out once whatever the number of processes.
// A service that was down across several periods sends the latest one only.
import { composeDigest, lastDigestPeriod, type DigestPeriod, type DigestSetting, type FailedRunTests, type QueueDigest } from '../domain/digest.js';
import type { Queue, TestRun } from '../domain/model.js';
import { digestEvent } from '../events/transition-events.js';
import type { MergeQueueRepositories } from '../store/store.js';
import type { CostReportService } from './cost-report-service.js';
import { runMinutes } from '../domain/metrics/cost-report.js';
import { readQueueHistory } from './queue-history.js';
import type { RunTestResultsSource } from './run-test-results.js';
import type { VerdictService } from './verdict-service.js';
import type { Logger } from '../../platform/logging.js';
import type { QueueService } from './queue-service.js';

export interface DigestDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns'>;
  verdicts: Pick<VerdictService, 'of'>;
  costs: Pick<CostReportService, 'forQueue'>;
  testResults: RunTestResultsSource;
  queues: Pick<QueueService, 'get'>;
  logger: Logger;
}

export class DigestService {
  constructor(private readonly deps: DigestDeps) {}

  /** One round: sends the digest of every queue whose period has ended since its last one; a queue that fails is left to the next round. */
  async sendDue(now = new Date()): Promise<number> {
    let sent = 0;
    for (const queue of await this.deps.store.queues.listAll()) {
      if (!queue.digest) continue;
      const period = lastDigestPeriod(queue.digest, now);
      if (queue.lastDigestAt && queue.lastDigestAt >= period.to) continue;
      try {
        const digest = await this.summarise(queue, queue.digest, period);
        if (await this.deps.store.queues.recordDigest(queue.id, period.to, [digestEvent(queue, digest, now, queue.version)], now)) {
          sent++;
          this.deps.logger.info({ queueId: queue.id, from: period.from, to: period.to }, 'queue digest sent');
        }
      } catch (err) {
        this.deps.logger.error({ err, queueId: queue.id }, 'queue digest not sent; tried again next round');
      }
    }
    return sent;
  }

  /** The digest of the queue's last ended period, as it would go out now (getQueueDigest); null without a digest setting. */
  async preview(orgId: string, repo: Queue['repo'], branch: string, now = new Date()): Promise<QueueDigest | null> {
    const queue = await this.deps.queues.get(orgId, repo, branch);
    return queue.digest ? this.summarise(queue, queue.digest, lastDigestPeriod(queue.digest, now)) : null;
  }

  private async summarise(queue: Queue, setting: DigestSetting, period: DigestPeriod): Promise<QueueDigest> {
    const [{ facts, runs }, cost] = await Promise.all([
      readQueueHistory(this.deps, queue, period.from),
      this.deps.costs.forQueue(queue, period.from, period.to),
    ]);
    const failedRuns = await this.flakyFailures(
      queue,
      runs.filter((r) => r.status === 'failed' && r.createdAt <= period.to),
      period,
    );
    return composeDigest({
      setting,
      period,
      facts,
      cost: { testRunsStarted: cost.testRunsStarted, ciMinutes: cost.ciMinutes, wastedCiMinutes: cost.wasted.ciMinutes },
      objectives: queue.objectives,
      failedRuns,
    });
  }

  /** The failed runs' tests that were known to be flaky when the run started, or are now. */
  private async flakyFailures(queue: Queue, failed: readonly TestRun[], period: DigestPeriod): Promise<FailedRunTests[]> {
    if (failed.length === 0) return [];
    const results = await this.deps.testResults.resultsOf(queue.orgId, queue.repo, failed);
    return failed.flatMap((run) => {
      const tests = (results.get(run.id)?.failedTests ?? []).filter((t) => t.before.flaky || t.status === 'flaky');
      if (tests.length === 0) return [];
      return [{ ciMinutes: runMinutes(run, period.to), flakyTests: tests.map((t) => ({ id: t.id, name: t.name })) }];
    });
  }
}
