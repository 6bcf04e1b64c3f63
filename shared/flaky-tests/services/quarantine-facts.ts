// The facts of a stored test that decide its quarantine (domain/detection/quarantine.ts), read the
// same way by every service: an expired override no longer counts, a release holds until the
// flaky-refresh job sees a new failure.
import { overrideInForce, type QuarantineFacts } from '../domain/detection/quarantine.js';
import type { HealthStatus } from '../domain/detection/types.js';
import type { TestCase } from '../domain/model.js';

export function quarantineFactsOf(
  test: Pick<TestCase, 'quarantine' | 'quarantineRelease' | 'status'>,
  now: Date,
  status: HealthStatus = test.status.value,
): QuarantineFacts {
  return { override: overrideInForce(test.quarantine, now), status, released: !!test.quarantineRelease };
}
