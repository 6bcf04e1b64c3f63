// The smaller rules: infrastructure protection, quarantine, configuration checks, windows,
// ticket URLs, failure ranking, run times and metrics.
import { expect } from 'chai';
import { isInfrastructureFailure } from '../../../../shared/flaky-tests/domain/detection/infrastructure.js';
import { isQuarantined, overrideInForce, quarantineSettingOf, type QuarantineOverride } from '../../../../shared/flaky-tests/domain/detection/quarantine.js';
import { defaultDetectionConfig, lookbackHours, validateDetectionConfig } from '../../../../shared/flaky-tests/domain/detection/config.js';
import { failingWindowProblems } from '../../../../shared/flaky-tests/domain/detection/failing-window.js';
import { isValidTicketTemplate, ticketUrl } from '../../../../shared/flaky-tests/domain/detection/ticket-url.js';
import { rankFailureClusters } from '../../../../shared/flaky-tests/domain/detection/most-common-failures.js';
import { runTime } from '../../../../shared/flaky-tests/domain/detection/run-time.js';
import { testMetrics } from '../../../../shared/flaky-tests/domain/detection/metrics.js';
import { hourStart, inWindow } from '../../../../shared/flaky-tests/domain/detection/windows.js';
import { describeBranches } from '../../../../shared/flaky-tests/domain/detection/branch-scope.js';
import type { HealthStatus } from '../../../../shared/flaky-tests/domain/detection/types.js';
import { at, bucket, DAY, HOUR, T0 } from './fixtures.js';

describe('infrastructure-failure protection', () => {
  const cfg = { enabled: true, threshold: 0.8, minTests: 10 };
  it('excludes uploads where strictly more than the threshold of tests failed', () => {
    expect(isInfrastructureFailure({ testsRun: 10, testsFailed: 9 }, cfg)).to.equal(true);
    expect(isInfrastructureFailure({ testsRun: 10, testsFailed: 8 }, cfg)).to.equal(false);
  });
  it('never excludes small uploads, empty ones, or when disabled', () => {
    expect(isInfrastructureFailure({ testsRun: 9, testsFailed: 9 }, cfg)).to.equal(false);
    expect(isInfrastructureFailure({ testsRun: 0, testsFailed: 0 }, { ...cfg, minTests: 0 })).to.equal(false);
    expect(isInfrastructureFailure({ testsRun: 100, testsFailed: 100 }, { ...cfg, enabled: false })).to.equal(false);
  });
});

describe('quarantine rule', () => {
  const table: [boolean, boolean, QuarantineOverride | null, HealthStatus, boolean][] = [
    [false, true, 'always', 'flaky', false],
    [true, false, null, 'flaky', false],
    [true, false, 'always', 'healthy', true],
    [true, true, null, 'flaky', true],
    [true, true, null, 'broken', true],
    [true, true, null, 'healthy', false],
    [true, true, 'never', 'broken', false],
    [true, false, 'never', 'healthy', false],
  ];
  for (const [enabled, autoQuarantine, override, status, expected] of table) {
    it(`enabled=${enabled} auto=${autoQuarantine} override=${override} ${status} → ${expected}`, () => {
      expect(isQuarantined({ enabled, autoQuarantine, releaseAfterCleanDays: 7 }, { override, status, released: false })).to.equal(expected);
    });
  }
  it('a released automatic quarantine does not count; an override still does', () => {
    const settings = { enabled: true, autoQuarantine: true, releaseAfterCleanDays: 7 };
    expect(isQuarantined(settings, { override: null, status: 'flaky', released: true })).to.equal(false);
    expect(isQuarantined(settings, { override: 'always', status: 'flaky', released: true })).to.equal(true);
  });
  it('an override counts until it expires, then the test falls back to automatic', () => {
    const at = new Date('2026-05-01T12:00:00Z');
    expect(overrideInForce({ override: 'never', expiresAt: new Date(at.getTime() + 1) }, at)).to.equal('never');
    expect(overrideInForce({ override: 'never', expiresAt: at }, at)).to.equal(null);
    expect(overrideInForce({ override: 'always', expiresAt: null }, at)).to.equal('always');
    expect(overrideInForce(null, at)).to.equal(null);
  });
  it('names the setting of a quarantined test', () => {
    expect(quarantineSettingOf('always')).to.equal('ALWAYS_QUARANTINE');
    expect(quarantineSettingOf(null)).to.equal('AUTO_QUARANTINE');
  });
});

describe('detection configuration', () => {
  it('the defaults are valid and reproduce the legacy rules', () => {
    const d = defaultDetectionConfig();
    expect(validateDetectionConfig(d)).to.deep.equal([]);
    expect(d.passOnRetry).to.deep.include({ enabled: true, recoveryDays: 7 });
    expect(d.failureRate[0]).to.deep.include({ classification: 'broken', activationThreshold: 0.8, minSampleSize: 5 });
    expect(d.failureCount[0]).to.deep.include({ classification: 'flaky', failureThreshold: 1 });
    expect(d.infrastructure).to.deep.equal({ enabled: true, threshold: 0.8, minTests: 10 });
    expect(lookbackHours(d)).to.equal(169);
  });
  it('reports cross-field problems', () => {
    const d = defaultDetectionConfig();
    d.failureRate.push({ ...d.failureRate[0]!, resolutionThreshold: 0.9 });
    d.failureCount[0]!.resolutionTimeoutHours = 1;
    d.passOnRetry.scope = { branchClasses: [], branchPatterns: [] };
    expect(validateDetectionConfig(d).map((p) => p.path)).to.deep.equal([
      '/pass_on_retry',
      '/failure_rate/1/id',
      '/failure_rate/1/resolution_threshold',
      '/failure_count/0/resolution_timeout_hours',
    ]);
  });
});

describe('list-failing-tests window', () => {
  it('allows up to 7 days with end after start', () => {
    expect(failingWindowProblems(at(0), at(7 * DAY))).to.deep.equal([]);
    expect(failingWindowProblems(at(0), at(7 * DAY + 1))[0]!.message).to.contain('7 days');
    expect(failingWindowProblems(at(0), at(0))[0]!.message).to.equal('must be after start_time');
    expect(failingWindowProblems(at(HOUR), at(0))).to.have.length(1);
  });
});

describe('ticket URLs', () => {
  it('fills the template, keeps URLs, refuses without a template', () => {
    expect(ticketUrl('KAN-123', 'https://acme.atlassian.net/browse/{ticket}')).to.equal('https://acme.atlassian.net/browse/KAN-123');
    expect(ticketUrl('a b/c', 'https://t.example/{ticket}')).to.equal('https://t.example/a%20b%2Fc');
    expect(ticketUrl('https://linear.app/x/issue/ENG-1', null)).to.equal('https://linear.app/x/issue/ENG-1');
    expect(ticketUrl('KAN-1', null)).to.equal(null);
    expect(isValidTicketTemplate('https://x/{ticket}')).to.equal(true);
    expect(isValidTicketTemplate('https://x/')).to.equal(false);
    expect(isValidTicketTemplate('javascript:{ticket}')).to.equal(false);
  });
});

describe('most common failures from clusters', () => {
  it('sums per cluster across days, most frequent first, latest wording', () => {
    const r = rankFailureClusters([
      { key: 'a', summary: 'Timeout after 5s', count: 2, lastAt: at(0) },
      { key: 'b', summary: 'NPE', count: 3, lastAt: at(HOUR) },
      { key: 'a', summary: 'Timeout after 7s', count: 2, lastAt: at(DAY) },
    ]);
    expect(r).to.deep.equal([
      { summary: 'Timeout after 7s', occurrence_count: 4, last_occurrence: at(DAY).toISOString() },
      { summary: 'NPE', occurrence_count: 3, last_occurrence: at(HOUR).toISOString() },
    ]);
  });
});

describe('run times', () => {
  const received = at(0);
  it("uses the report's timestamp when plausible, else the upload's start, else receipt", () => {
    expect(runTime(at(-HOUR), null, received)).to.deep.equal(at(-HOUR));
    expect(runTime(new Date('0001-01-01T00:00:00Z'), at(-60_000), received)).to.deep.equal(at(-60_000));
    expect(runTime(at(-2 * DAY), null, received)).to.deep.equal(received);
    expect(runTime(at(HOUR), null, received)).to.deep.equal(received);
    expect(runTime(null, null, received)).to.deep.equal(received);
  });
});

describe('windows and metrics', () => {
  it('hours are UTC clock hours; a bucket counts while part of it is inside', () => {
    expect(hourStart(T0 + 59 * 60_000).getTime()).to.equal(T0);
    const b = bucket(0, { f: 1 });
    expect(inWindow(b, new Date(T0 + 24 * HOUR + 59 * 60_000), 24)).to.equal(true);
    expect(inWindow(b, new Date(T0 + 25 * HOUR), 24)).to.equal(false);
    expect(inWindow(b, new Date(T0 - 1), 24)).to.equal(false);
  });
  it('rates are fractions over passed + failed runs; PRs are distinct failing PR numbers', () => {
    const m = testMetrics([bucket(-48, { f: 1, p: 1 }, 'f', 'pull_request', [1]), bucket(-2, { f: 1, p: 3, s: 9 }, 'g', 'pull_request', [1, 2])], at(0));
    expect(m).to.deep.equal({ failureRateLast7d: 2 / 6, failureRateLast24h: 1 / 4, pullRequestsImpactedLast7d: 2 });
    expect(testMetrics([], at(0))).to.deep.equal({ failureRateLast7d: 0, failureRateLast24h: 0, pullRequestsImpactedLast7d: 0 });
  });
  it('names branches compactly', () => {
    expect(describeBranches(['main'])).to.equal('on main');
    expect(describeBranches(['b', 'a', 'a'])).to.equal('on a and b');
    expect(describeBranches(['a', 'b', 'c', 'd', 'e'])).to.equal('on a, b and 3 more branches');
  });
});
