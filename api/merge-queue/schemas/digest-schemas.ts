// The wire shape of a queue's digest (updateQueue's `digest`, getQueue's answer, getQueueDigest;
// docs/digests.md). What the shape cannot say — a real time zone — is digestProblems'.
import Type from 'typebox';
import { DIGEST_CADENCES, type DigestCadence } from '../../../shared/merge-queue/domain/digest.js';
import { WEEKDAYS, type Weekday } from '../../../shared/merge-queue/domain/merge-schedule.js';
import { OBJECTIVE_LEVELS, OBJECTIVE_METRICS, type ObjectiveLevel, type ObjectiveMetric } from '../../../shared/merge-queue/domain/objectives.js';
import { VERDICT_KINDS } from '../../../shared/merge-queue/domain/verdict-kinds.js';
import { nullable } from '../../../shared/merge-queue/domain/schedule-input.js';

const cadence = Type.Unsafe<DigestCadence>(Type.String({ enum: [...DIGEST_CADENCES] }));
const weekday = Type.Unsafe<Weekday>(Type.String({ enum: [...WEEKDAYS] }));
const localTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', maxLength: 5, description: 'local time HH:MM' });

/** updateQueue's `digest`: null stops it. */
export const DigestInputSchema = nullable(
  Type.Object(
    {
      cadence,
      at: Type.Optional(localTime),
      day: Type.Optional(weekday),
      timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    },
    { additionalProperties: false },
  ),
);

export const DigestSettingResponse = nullable(
  Type.Object({ cadence, at: Type.String(), day: weekday, timeZone: Type.String() }, { additionalProperties: false }),
);

const minutes = nullable(Type.Number());

/** A digest as the queue.digest event carries it and getQueueDigest answers it. */
export const QueueDigestResponse = Type.Object(
  {
    cadence,
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    merged: Type.Object(
      { count: Type.Integer({ minimum: 0 }), timeInQueueMinutes: Type.Object({ p50: minutes, p90: minutes }, { additionalProperties: false }) },
      { additionalProperties: false },
    ),
    ejected: Type.Object(
      {
        count: Type.Integer({ minimum: 0 }),
        byVerdict: Type.Object(Object.fromEntries(VERDICT_KINDS.map((k) => [k, Type.Integer({ minimum: 0 })])), { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
    testRuns: Type.Object({ started: Type.Integer({ minimum: 0 }), ciMinutes: Type.Number(), wastedCiMinutes: Type.Number() }, { additionalProperties: false }),
    objectives: Type.Array(
      Type.Object(
        {
          metric: Type.Unsafe<ObjectiveMetric>(Type.String({ enum: [...OBJECTIVE_METRICS] })),
          value: nullable(Type.Number()),
          level: Type.Unsafe<ObjectiveLevel>(Type.String({ enum: [...OBJECTIVE_LEVELS] })),
          met: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
    ),
    flakyTests: Type.Array(
      Type.Object(
        { testId: Type.String(), name: Type.String(), failedRuns: Type.Integer({ minimum: 1 }), ciMinutes: Type.Number() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** getQueueDigest: the digest of the last ended period as it would go out now; null without a digest setting. */
export const GetQueueDigestResponse = Type.Object({ digest: nullable(QueueDigestResponse) }, { additionalProperties: false });
