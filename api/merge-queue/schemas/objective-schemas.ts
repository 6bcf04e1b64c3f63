// The wire shape of queue objectives (updateQueue's `objectives`, getQueue's answer and
// `objectiveStatus`; docs/objectives.md).
import Type from 'typebox';
import { OBJECTIVE_LEVELS, OBJECTIVE_METRICS, type ObjectiveLevel, type ObjectiveMetric } from '../../../shared/merge-queue/domain/objectives.js';

const metric = Type.Unsafe<ObjectiveMetric>(Type.String({ enum: [...OBJECTIVE_METRICS] }));
const level = Type.Unsafe<ObjectiveLevel>(Type.String({ enum: [...OBJECTIVE_LEVELS] }));
const measureValue = Type.Number({ minimum: 0, maximum: 1_000_000 });

/** updateQueue's `objectives`: the whole list (an empty one removes them). */
export const ObjectivesInputSchema = Type.Array(
  Type.Object(
    {
      metric,
      warning: measureValue,
      critical: measureValue,
      windowHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720 })),
      forMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_440 })),
    },
    { additionalProperties: false },
  ),
  { maxItems: OBJECTIVE_METRICS.length },
);

export const ObjectivesResponse = Type.Array(
  Type.Object(
    { metric, warning: Type.Number(), critical: Type.Number(), windowHours: Type.Integer(), forMinutes: Type.Integer() },
    { additionalProperties: false },
  ),
);

export const ObjectiveStatusResponse = Type.Array(
  Type.Object(
    {
      metric,
      level,
      since: Type.String({ format: 'date-time' }),
      value: Type.Union([Type.Number(), Type.Null()]),
      pending: Type.Union([Type.Object({ level, since: Type.String({ format: 'date-time' }) }, { additionalProperties: false }), Type.Null()]),
    },
    { additionalProperties: false },
  ),
);
