// The flaky-tests side's outbound events (docs/webhooks.md): a test's status changed, a test was
// quarantined. The services compute them before the write that changes the test and hand them to
// that write, which puts them into the test's outbox (shared/platform/events/outbox.ts).
import type { HealthStatus } from '../domain/detection/types.js';
import { isQuarantined, wireOverrideOf } from '../domain/detection/quarantine.js';
import type { HealthWrite } from '../store/test-case-repository.js';
import type { FlakyRepo, TestCase } from '../domain/model.js';

/** The flaky-tests side's event names, as endpoints subscribe to them. */
export const TEST_EVENT_TYPES = ['test.status_changed', 'test.quarantined'] as const;
export type TestEventType = (typeof TEST_EVENT_TYPES)[number];

export interface TestEvent {
  orgId: string;
  type: TestEventType;
  /** Events of one test reach an endpoint in `order`. */
  orderKey: string;
  order: { at: Date; version: number };
  subject: Record<string, never>;
  payload: Record<string, unknown>;
}

/**
 * The events of one saved detection write: `test.status_changed` for each status change it
 * recorded, and `test.quarantined` when it quarantined the test automatically (quarantining and
 * auto-quarantine on, no override pinning the test either way, not quarantined before).
 */
export function detectionEvents(
  repo: Pick<FlakyRepo, 'orgId' | 'repo' | 'quarantine'>,
  before: TestCase,
  write: Pick<HealthWrite, 'changes' | 'health'>,
): TestEvent[] {
  const repository = { host: repo.repo.host, owner: repo.repo.owner, name: repo.repo.name };
  const test = (status: string) => ({ id: before.testId, name: before.name, status });
  const orderKey = `test:${before.testId}`;
  const events: TestEvent[] = [];
  let version = before.statusHistory.length;
  for (const change of write.changes) {
    version++;
    events.push({
      orgId: repo.orgId,
      type: 'test.status_changed',
      orderKey,
      order: { at: change.at, version },
      subject: {},
      payload: {
        type: 'test.status_changed',
        timestamp: change.at.toISOString(),
        repository,
        test: test(change.to),
        from: change.from,
        to: change.to,
        reason: change.reason,
        monitor: change.monitor,
      },
    });
  }
  const last = write.changes.at(-1);
  const pinned = (before.quarantine?.override ?? null) !== null;
  const auto = (status: HealthStatus) => isQuarantined(repo.quarantine, { override: null, status, released: !!before.quarantineRelease });
  if (last && !pinned && !auto(before.status.value) && auto(write.health.status.value)) {
    events.push({
      orgId: repo.orgId,
      type: 'test.quarantined',
      orderKey,
      order: { at: last.at, version },
      subject: {},
      payload: {
        type: 'test.quarantined',
        timestamp: last.at.toISOString(),
        repository,
        test: test(write.health.status.value),
        override: null,
        reason: last.reason,
        actor: null,
        automatic: true,
      },
    });
  }
  return events;
}

/**
 * `test.quarantined` for an override that quarantines a test (it was not quarantined before the
 * override's write): decided by QuarantineService on the version its compare-and-set replaces and
 * written by that write, so two concurrent overrides cannot both claim it.
 */
export function overrideQuarantinedEvent(
  repo: Pick<FlakyRepo, 'orgId' | 'repo'>,
  updated: Pick<TestCase, 'testId' | 'name' | 'status' | 'quarantine' | 'quarantineHistory'>,
): TestEvent {
  const record = updated.quarantine;
  const at = record?.at ?? new Date();
  return {
    orgId: repo.orgId,
    type: 'test.quarantined',
    orderKey: `test:${updated.testId}`,
    order: { at, version: updated.quarantineHistory.length },
    subject: {},
    payload: {
      type: 'test.quarantined',
      timestamp: at.toISOString(),
      repository: repo.repo,
      test: { id: updated.testId, name: updated.name, status: updated.status.value },
      override: wireOverrideOf(record?.override ?? null),
      reason: record?.reason ?? null,
      actor: record?.actor ?? null,
    },
  };
}
