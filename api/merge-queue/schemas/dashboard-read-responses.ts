// The 200 answers of the dashboard's read endpoints (docs/api.md, "Dashboard reads"), described in
// the OpenAPI document and checked against real answers by its test.
import { ROLES } from '../../../shared/platform/accounts/roles.js';
import Type, { type TSchema } from 'typebox';
import { ENTRY_STATES, QUEUE_MODES, QUEUE_STATES } from '../../../shared/merge-queue/domain/model.js';
import { repoSchema } from '../../validation/common.js';

const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const oneOf = (values: readonly string[]) => Type.Enum([...values], { type: 'string' });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const dateTime = Type.String({ format: 'date-time' });
const count = Type.Integer({ minimum: 0 });
const seconds = nullable(Type.Number({ minimum: 0 }));

export const TokenInfoResponse = closed({
  organization: closed({ slug: Type.String() }),
  token: closed({ name: Type.String(), role: Type.Enum([...ROLES], { type: 'string' }) }),
});

export const ListQueuesResponse = closed({
  queues: Type.Array(
    closed({
      repo: repoSchema,
      targetBranch: Type.String(),
      state: oneOf(QUEUE_STATES),
      mode: oneOf(QUEUE_MODES),
      concurrency: count,
      counts: closed(Object.fromEntries(ENTRY_STATES.map((s) => [s, count]))),
      mergedLast24h: Type.Array(count),
    }),
  ),
});

export const ListTestRunsResponse = closed({
  testRuns: Type.Array(
    closed({
      id: Type.String(),
      kind: Type.String(),
      status: Type.String(),
      testBranch: Type.String(),
      testBranchSha: Type.String(),
      createdAt: dateTime,
      concludedAt: nullable(dateTime),
      conclusionReason: nullable(Type.String()),
      testedPrs: Type.Array(count),
      basePrs: Type.Array(count),
      bisectionOf: nullable(Type.String()),
    }),
  ),
});

export const QueueHealthResponse = closed({
  windowStart: dateTime,
  windowEnd: dateTime,
  bucketSeconds: Type.Number({ minimum: 0 }),
  buckets: Type.Array(
    closed({
      start: dateTime,
      end: dateTime,
      merged: count,
      failed: count,
      cancelled: count,
      restarts: count,
      testRuns: count,
      timeInQueueP50: seconds,
      timeInQueueP90: seconds,
    }),
  ),
  failuresByReason: Type.Array(closed({ reason: Type.String(), count })),
  merged: count,
  testRuns: count,
  ciRunsPerMergedPr: nullable(Type.Number({ minimum: 0 })),
  mergedCommits: closed({ tested: Type.Integer({ minimum: 0 }), untested: Type.Integer({ minimum: 0 }) }),
});

export const TestHistoryResponse = closed({
  status_history: Type.Array(closed({ at: dateTime, from: Type.String(), to: Type.String(), reason: Type.String() })),
  daily_runs: Type.Array(closed({ day: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }), passed: count, failed: count, skipped: count })),
});
