// POST /v1/simulateQueue: the request (a queue, a window of history, candidate settings, an
// optional goal for advice) and its 200 answer (the replay under each setting, side by side).
import Type, { type Static, type TSchema } from 'typebox';
import { OPTIMIZATION_MODES, QUEUE_MODES } from '../../../shared/merge-queue/domain/model.js';
import { MAX_CANDIDATES } from '../../../shared/merge-queue/simulation/what-if.js';
import { branchSchema, caseInsensitiveEnum, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';
import { QUEUE_LIMITS } from './queue-schemas.js';

const int = (range: { minimum: number; maximum: number }) => Type.Integer({ ...range });
const optional = <T extends TSchema>(t: T) => Type.Optional(t);

const settingsProperties = {
  mode: optional(caseInsensitiveEnum(QUEUE_MODES, 64)),
  concurrency: optional(int(QUEUE_LIMITS.concurrency)),
  bisectionConcurrency: optional(int(QUEUE_LIMITS.bisectionConcurrency)),
  batch: optional(Type.Boolean()),
  batchingMinSize: optional(int(QUEUE_LIMITS.batchingMinSize)),
  batchingMaxWaitTimeMinutes: optional(int(QUEUE_LIMITS.batchingMaxWaitTimeMinutes)),
  optimizationMode: optional(caseInsensitiveEnum(OPTIMIZATION_MODES, 64)),
  pendingFailureDepth: optional(int(QUEUE_LIMITS.pendingFailureDepth)),
  canOptimisticallyMerge: optional(Type.Boolean()),
  testingTimeoutMinutes: optional(int(QUEUE_LIMITS.testingTimeoutMinutes)),
};

export const SIMULATION_LIMITS = {
  days: { minimum: 1, maximum: 90 },
  maxPullRequests: { minimum: 1, maximum: 1000 },
  defaultDays: 30,
  defaultMaxPullRequests: 500,
} as const;

export const SimulateQueueSchema = Type.Object(
  {
    repo: repoSchema,
    targetBranch: branchSchema,
    days: optional(int(SIMULATION_LIMITS.days)),
    maxPullRequests: optional(int(SIMULATION_LIMITS.maxPullRequests)),
    candidates: optional(Type.Array(Type.Object(settingsProperties, { additionalProperties: false }), { maxItems: MAX_CANDIDATES })),
    goal: optional(
      Type.Union([
        Type.Object({ kind: Type.Literal('lowest_latency') }, { additionalProperties: false }),
        Type.Object(
          { kind: Type.Literal('lowest_ci_cost'), maxP50Minutes: Type.Number({ minimum: 0 }), maxP95Minutes: optional(Type.Number({ minimum: 0 })) },
          { additionalProperties: false },
        ),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type SimulateQueueBody = Static<typeof SimulateQueueSchema>;

export const parseSimulateQueue = compileValidator(SimulateQueueSchema);

const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const maybe = Type.Union([Type.Number(), Type.Null()]);

const SettingsResponse = closed({
  mode: Type.Enum([...QUEUE_MODES], { type: 'string' }),
  concurrency: Type.Integer(),
  bisectionConcurrency: Type.Integer(),
  batch: Type.Boolean(),
  batchingMinSize: Type.Integer(),
  batchingMaxWaitTimeMinutes: Type.Integer(),
  optimizationMode: Type.Enum([...OPTIMIZATION_MODES], { type: 'string' }),
  pendingFailureDepth: Type.Integer(),
  canOptimisticallyMerge: Type.Boolean(),
  testingTimeoutMinutes: Type.Integer(),
});

const OutcomeResponse = closed({
  settings: SettingsResponse,
  truncated: Type.Boolean(),
  efficiency: closed({
    merged: Type.Integer(),
    failed: Type.Integer(),
    innocentEjections: Type.Integer(),
    unfinished: Type.Integer(),
    timeInQueueMinutes: closed({ p50: maybe, p90: maybe, p95: maybe, p99: maybe }),
    mergesPerHour: maybe,
    ciRunsPerMerged: maybe,
    ciMinutesPerMerged: maybe,
  }),
});

export const SimulateQueueResponse = closed({
  history: closed({
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    pullRequests: Type.Integer(),
    pullRequestsSeen: Type.Integer(),
    sampled: Type.Boolean(),
    notes: Type.Array(Type.String()),
  }),
  current: OutcomeResponse,
  candidates: Type.Array(OutcomeResponse),
  advice: Type.Union([
    closed({
      goal: Type.Object(
        { kind: Type.String(), maxP50Minutes: Type.Optional(Type.Number()), maxP95Minutes: Type.Optional(Type.Number()) },
        { additionalProperties: false },
      ),
      current: OutcomeResponse,
      best: Type.Union([OutcomeResponse, Type.Null()]),
      reasons: Type.Array(Type.String()),
      tried: Type.Array(OutcomeResponse),
    }),
    Type.Null(),
  ]),
});
