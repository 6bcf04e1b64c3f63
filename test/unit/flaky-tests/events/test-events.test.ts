// The flaky-tests side's outbound events: each status change a detection write saved is a
// `test.status_changed`, and a change that quarantines the test automatically a `test.quarantined`.
import { expect } from 'chai';
import { detectionEvents, type TestEvent } from '../../../../shared/flaky-tests/events/test-events.js';
import type { StatusChange, TestHealth } from '../../../../shared/flaky-tests/domain/detection/index.js';
import type { TestCase } from '../../../../shared/flaky-tests/domain/model.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const AT = new Date('2026-11-01T10:00:00Z');

const before = (over: Partial<TestCase> = {}): TestCase =>
  ({
    id: 'r1:t1',
    orgId: 'o1',
    repoId: 'r1',
    testId: 't1',
    name: 'adds two numbers',
    status: { value: 'healthy', reason: 'new', timestamp: AT },
    monitors: {},
    reevaluateAt: null,
    statusHistory: [],
    quarantine: null,
    quarantineHistory: [],
    ...over,
  }) as TestCase;

const change = (from: StatusChange['from'], to: StatusChange['to'], at = AT): StatusChange => ({
  at,
  from,
  to,
  reason: `${to} by failure rate`,
  monitor: to === 'healthy' ? null : 'failure_rate:default',
});
const health = (value: TestHealth['status']['value']): TestHealth => ({ status: { value, reason: 'x', timestamp: AT }, monitors: {}, reevaluateAt: null });

describe('flaky-tests outbound events', () => {
  it('emits test.status_changed for each change, with test, repository, from, to, reason and timestamp', () => {
    const later = new Date(AT.getTime() + 3_600_000);
    const repo = { orgId: 'o1', repo: REPO, quarantine: { enabled: false, autoQuarantine: false, releaseAfterCleanDays: 7 } };
    const emitted = detectionEvents(repo, before({ statusHistory: [change('healthy', 'flaky')] }), {
      changes: [change('flaky', 'broken'), change('broken', 'healthy', later)],
      health: health('healthy'),
    });
    expect(emitted.map((e) => e.type)).to.deep.equal(['test.status_changed', 'test.status_changed']);
    expect(emitted.map((e) => [e.orderKey, e.order.version])).to.deep.equal([
      ['test:t1', 2],
      ['test:t1', 3],
    ]);
    expect(emitted[0]).to.deep.include({ orgId: 'o1', order: { at: AT, version: 2 } });
    expect(emitted[0]!.payload).to.deep.equal({
      type: 'test.status_changed',
      timestamp: AT.toISOString(),
      repository: REPO,
      test: { id: 't1', name: 'adds two numbers', status: 'broken' },
      from: 'flaky',
      to: 'broken',
      reason: 'broken by failure rate',
      monitor: 'failure_rate:default',
    });
    expect(emitted[1]!.payload).to.deep.include({ from: 'broken', to: 'healthy', timestamp: later.toISOString(), monitor: null });
  });

  it('emits test.quarantined when auto-quarantine quarantines the test, and only then', () => {
    const auto = { orgId: 'o1', repo: REPO, quarantine: { enabled: true, autoQuarantine: true, releaseAfterCleanDays: 7 } };
    const flaky = { changes: [change('healthy', 'flaky')], health: health('flaky') };
    const types = (evs: TestEvent[]) => evs.map((e) => e.type);

    const events = detectionEvents(auto, before(), flaky);
    expect(types(events)).to.deep.equal(['test.status_changed', 'test.quarantined']);
    expect(events[1]!.payload).to.deep.include({ type: 'test.quarantined', override: null, actor: null, automatic: true, reason: 'flaky by failure rate' });
    expect(events[1]!.payload.test).to.deep.equal({ id: 't1', name: 'adds two numbers', status: 'flaky' });

    // Already quarantined (flaky → broken), auto-quarantine off, quarantining off, pinned by an override: no test.quarantined.
    expect(
      types(
        detectionEvents(auto, before({ status: { value: 'flaky', reason: 'x', timestamp: AT } }), {
          changes: [change('flaky', 'broken')],
          health: health('broken'),
        }),
      ),
    ).to.deep.equal(['test.status_changed']);
    expect(types(detectionEvents({ ...auto, quarantine: { enabled: true, autoQuarantine: false, releaseAfterCleanDays: 7 } }, before(), flaky))).to.deep.equal([
      'test.status_changed',
    ]);
    expect(types(detectionEvents({ ...auto, quarantine: { enabled: false, autoQuarantine: true, releaseAfterCleanDays: 7 } }, before(), flaky))).to.deep.equal([
      'test.status_changed',
    ]);
    const pinned = before({ quarantine: { override: 'never', reason: 'known', actor: 'a', at: AT } });
    expect(types(detectionEvents(auto, pinned, flaky))).to.deep.equal(['test.status_changed']);
    // Recovering to healthy un-quarantines; nothing is quarantined.
    expect(
      types(
        detectionEvents(auto, before({ status: { value: 'flaky', reason: 'x', timestamp: AT } }), {
          changes: [change('flaky', 'healthy')],
          health: health('healthy'),
        }),
      ),
    ).to.deep.equal(['test.status_changed']);
  });

  it('emits nothing for a write without a status change', () => {
    expect(
      detectionEvents({ orgId: 'o1', repo: REPO, quarantine: { enabled: true, autoQuarantine: true, releaseAfterCleanDays: 7 } }, before(), {
        changes: [],
        health: health('healthy'),
      }),
    ).to.deep.equal([]);
  });
});
