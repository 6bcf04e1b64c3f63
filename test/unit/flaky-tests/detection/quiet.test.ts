// isQuiet promises that evaluating a quiet test changes nothing, whatever passed or skipped runs
// it has: checked here against evaluateHealth over random configurations and evidence.
import { expect } from 'chai';
import { evaluateHealth, initialHealth, sameHealth } from '../../../../shared/flaky-tests/domain/detection/classify.js';
import { defaultDetectionConfig, lookbackHours, type DetectionConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import { isQuiet } from '../../../../shared/flaky-tests/domain/detection/quiet.js';
import type { HourBucket, RetryDetection, TestHealth } from '../../../../shared/flaky-tests/domain/detection/types.js';
import { rng } from '../../../../shared/platform/seeded-random.js';
import { at, bucket, DAY, detection, HOUR } from './fixtures.js';

const NOW = at(40 * DAY);

function randomConfig(random: () => number): DetectionConfig {
  const config = defaultDetectionConfig();
  config.passOnRetry.recoveryDays = 1 + Math.floor(random() * 14);
  for (const m of config.failureRate) {
    m.windowHours = 1 + Math.floor(random() * 24 * 14);
    m.activationThreshold = 0.01 + random() * 0.99;
    m.resolutionThreshold = m.activationThreshold * random();
    m.minSampleSize = Math.floor(random() * 20);
    m.staleTimeoutHours = random() < 0.5 ? null : 1 + Math.floor(random() * 200);
  }
  for (const m of config.failureCount) {
    m.windowHours = 1 + Math.floor(random() * 24 * 7);
    m.failureThreshold = 1 + Math.floor(random() * 3);
    m.resolutionTimeoutHours = m.windowHours + Math.floor(random() * 100);
  }
  return config;
}

/** Healthy with nothing scheduled: new, or recovered some time ago. */
function quietHealth(random: () => number): TestHealth {
  if (random() < 0.5) return initialHealth(at(Math.floor(random() * 10 * DAY)));
  return { status: { value: 'healthy', reason: 'Recovered: Failure rate 0.0% < 20%', timestamp: at(5 * DAY) }, monitors: {}, reevaluateAt: null };
}

/** Passed and skipped runs anywhere up to an hour past now; failures and detections only until `lastEvidence`. */
function evidence(random: () => number, lastEvidence: number | null): { buckets: HourBucket[]; detections: RetryDetection[] } {
  const buckets: HourBucket[] = [];
  const detections: RetryDetection[] = [];
  const nowHours = (NOW.getTime() - at(0).getTime()) / HOUR;
  for (let i = 0; i < 60; i++) {
    const hour = Math.floor(random() * (nowHours + 1));
    const branch = random() < 0.5 ? 'main' : 'feature/x';
    buckets.push(bucket(hour, { p: Math.floor(random() * 30), s: Math.floor(random() * 3) }, branch, branch === 'main' ? 'main' : 'pull_request', [7]));
  }
  if (lastEvidence !== null) {
    const lastHour = Math.floor((lastEvidence - at(0).getTime()) / HOUR) - 1;
    for (let i = 0; i < 10 && lastHour >= 0; i++) {
      buckets.push(bucket(Math.floor(random() * lastHour), { f: 1 + Math.floor(random() * 5), p: Math.floor(random() * 5) }, 'main', 'main', []));
      detections.push(detection(Math.floor(random() * (lastEvidence - at(0).getTime()))));
    }
  }
  return { buckets, detections };
}

describe('quiet tests (evaluation skipped)', () => {
  it('evaluating a quiet test never changes it, over 2,000 random configurations and histories', () => {
    const random = rng(16);
    let checked = 0;
    for (let i = 0; i < 2000; i++) {
      const config = randomConfig(random);
      const lookbackMs = lookbackHours(config) * HOUR;
      const lastEvidence = random() < 0.3 ? null : NOW.getTime() - lookbackMs - 1 - Math.floor(random() * 10 * DAY);
      const previous = quietHealth(random);
      const lastEvidenceAt = lastEvidence === null ? null : new Date(lastEvidence);
      expect(isQuiet(config, previous, lastEvidenceAt, NOW)).to.equal(true);
      const { health, change } = evaluateHealth({ config, previous, evidence: evidence(random, lastEvidence), now: NOW });
      expect(change, `case ${i}`).to.equal(null);
      expect(sameHealth(previous, health), `case ${i}: ${JSON.stringify(health)}`).to.equal(true);
      checked++;
    }
    expect(checked).to.equal(2000);
  });

  it('is not quiet with evidence inside the lookback window, unknown evidence, an active monitor, a schedule or another status', () => {
    const config = defaultDetectionConfig();
    const lookbackMs = lookbackHours(config) * HOUR;
    const healthy = initialHealth(at(0));
    expect(isQuiet(config, healthy, new Date(NOW.getTime() - lookbackMs + HOUR), NOW)).to.equal(false);
    expect(isQuiet(config, healthy, undefined, NOW)).to.equal(false);
    expect(isQuiet(config, { ...healthy, reevaluateAt: NOW }, null, NOW)).to.equal(false);
    expect(isQuiet(config, { ...healthy, status: { ...healthy.status, value: 'flaky' } }, null, NOW)).to.equal(false);
    const active = { active: true, classification: 'flaky' as const, since: at(0), reason: 'x' };
    expect(isQuiet(config, { ...healthy, monitors: { pass_on_retry: active } }, null, NOW)).to.equal(false);
    const zero = defaultDetectionConfig();
    (zero.failureRate[0] as DetectionConfig['failureRate'][number]).activationThreshold = 0;
    expect(isQuiet(zero, healthy, null, NOW), 'a zero threshold activates on passes alone').to.equal(false);
  });

  it('a failure just inside the window can change the test on passing runs alone, which is why it is not quiet', () => {
    const config = defaultDetectionConfig();
    const rate = config.failureRate[0] as DetectionConfig['failureRate'][number];
    rate.activationThreshold = 0.1;
    rate.resolutionThreshold = 0.05;
    rate.minSampleSize = 10;
    config.failureRate = [rate];
    config.failureCount = [];
    const failing = bucket(40 * 24 - 5, { f: 1 });
    const before = evaluateHealth({
      config,
      previous: initialHealth(at(0)),
      evidence: { buckets: [failing, bucket(40 * 24 - 4, { p: 3 })], detections: [] },
      now: NOW,
    });
    const after = evaluateHealth({
      config,
      previous: before.health,
      evidence: { buckets: [failing, bucket(40 * 24 - 4, { p: 3 }), bucket(40 * 24 - 1, { p: 6 })], detections: [] },
      now: NOW,
    });
    expect(before.health.status.value).to.equal('healthy');
    expect(after.health.status.value, 'ten runs reach the sample size with one failure in ten').to.not.equal('healthy');
    expect(isQuiet(config, before.health, failing.lastFailureAt, NOW)).to.equal(false);
  });
});
