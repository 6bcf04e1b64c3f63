import { expect } from 'chai';
import { evaluateHealth, initialHealth, INITIAL_REASON } from '../../../../shared/flaky-tests/domain/detection/classify.js';
import { defaultDetectionConfig, type DetectionConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import type { TestEvidence } from '../../../../shared/flaky-tests/domain/detection/types.js';
import { at, bucket, DAY, detection, HOUR, T0 } from './fixtures.js';

const none: TestEvidence = { buckets: [], detections: [] };

describe('classification (most severe active monitor)', () => {
  const config = defaultDetectionConfig();

  it('a new test with no evidence is healthy with the initial reason', () => {
    const { health, change } = evaluateHealth({ config, previous: initialHealth(at(0)), evidence: none, now: at(HOUR) });
    expect(health.status).to.deep.equal({ value: 'healthy', reason: INITIAL_REASON, timestamp: at(0) });
    expect(change).to.equal(null);
    expect(health.reevaluateAt).to.equal(null);
  });

  it('pass-on-retry on a PR makes a test flaky; the change is recorded with the evidence time', () => {
    const evidence: TestEvidence = {
      buckets: [bucket(0, { f: 1, p: 1 }, 'feature/x', 'pull_request', [4])],
      detections: [detection(10 * 60_000, 'abcdef1234', 'feature/x', 'pull_request', 4)],
    };
    const { health, change } = evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) });
    expect(health.status.value).to.equal('flaky');
    expect(health.status.reason).to.equal('Failed and passed on the same commit abcdef1 on PR #4');
    expect(health.status.timestamp.getTime()).to.equal(T0 + 10 * 60_000);
    expect(change).to.deep.include({ from: 'healthy', to: 'flaky', monitor: 'pass_on_retry' });
    expect(health.reevaluateAt!.getTime()).to.equal(T0 + 10 * 60_000 + 7 * DAY);
  });

  it('broken wins over flaky', () => {
    const evidence: TestEvidence = { buckets: [bucket(0, { f: 5 })], detections: [detection(0)] };
    const { health } = evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) });
    expect(health.status.value).to.equal('broken');
    expect(health.status.reason).to.match(/^Failure rate 100\.0% >= 80%/);
    expect(
      Object.values(health.monitors)
        .map((m) => m.classification)
        .sort(),
    ).to.deep.equal(['broken', 'flaky', 'flaky']);
  });

  it('among equally severe monitors, pass-on-retry explains first', () => {
    const evidence: TestEvidence = { buckets: [bucket(0, { f: 1, p: 1 })], detections: [detection(0, 'abcdef1234')] };
    const { health } = evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) });
    expect(health.status.reason).to.equal('Failed and passed on the same commit abcdef1 on main');
  });

  it('is healthy again only when every monitor resolved, naming the last one', () => {
    const evidence: TestEvidence = { buckets: [bucket(0, { f: 1, p: 1 })], detections: [detection(0, 'abcdef1234')] };
    const flaky = evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) }).health;
    // Both pass-on-retry and failure count resolve 7 days after their evidence.
    const still = evaluateHealth({ config, previous: flaky, evidence, now: at(7 * DAY - 1) });
    expect(still.health.status.value).to.equal('flaky');
    const recovered = evaluateHealth({ config, previous: flaky, evidence, now: at(8 * DAY) });
    expect(recovered.health.status.value).to.equal('healthy');
    expect(recovered.health.status.reason).to.match(/^Recovered: /);
    expect(recovered.change).to.deep.include({ from: 'flaky', to: 'healthy', monitor: null });
    expect(recovered.health.status.timestamp.getTime()).to.be.at.most(T0 + 8 * DAY);
  });

  it('keeps the status timestamp while the value does not change', () => {
    const evidence: TestEvidence = { buckets: [bucket(0, { f: 1 })], detections: [] };
    const flaky = evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) }).health;
    const again = evaluateHealth({
      config,
      previous: flaky,
      evidence: { buckets: [bucket(0, { f: 1 }), bucket(2, { f: 1 })], detections: [] },
      now: at(3 * HOUR),
    });
    expect(again.change).to.equal(null);
    expect(again.health.status.timestamp).to.deep.equal(flaky.status.timestamp);
    expect(again.health.status.reason).to.equal('2 failures in the last 24h on main');
  });

  it('disabled monitors do not classify, and disabling the deciding one recovers the test', () => {
    const evidence: TestEvidence = { buckets: [bucket(0, { f: 5 })], detections: [] };
    const broken = evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) }).health;
    const off: DetectionConfig = { ...config, failureRate: config.failureRate.map((m) => ({ ...m, enabled: false })), failureCount: [] };
    const r = evaluateHealth({ config: off, previous: broken, evidence, now: at(2 * HOUR) });
    expect(r.health.status.value).to.equal('healthy');
    expect(r.health.status.reason).to.equal('Recovered: the monitors that flagged this test are disabled');
    expect(r.health.monitors).to.deep.equal({});
  });

  it('PR failures alone never make a test broken or flaky under the defaults', () => {
    const evidence: TestEvidence = { buckets: [bucket(0, { f: 50 }, 'feature/x', 'pull_request', [1, 2])], detections: [] };
    expect(evaluateHealth({ config, previous: initialHealth(at(0)), evidence, now: at(HOUR) }).health.status.value).to.equal('healthy');
  });
});
