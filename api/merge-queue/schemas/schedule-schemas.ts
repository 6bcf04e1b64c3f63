// The wire shape of a queue's merge windows and freezes (updateQueue's `schedule`, getQueue's
// answer). What the shape cannot say — a real time zone, a date that exists, a freeze that ends
// after it begins — is checked by the domain (scheduleProblems) and answered as 400 with paths.
import Type from 'typebox';
import type { ClosureKind } from '../../../shared/merge-queue/domain/merge-schedule.js';
import type { ScheduleOrigin } from '../../../shared/merge-queue/domain/merge-window.js';
import {
  DailyPeriodSchema,
  HolidaySchema,
  InFlightAtFreezeSchema,
  ScheduleInputObjectSchema,
  nullable,
} from '../../../shared/merge-queue/domain/schedule-input.js';
import { FORECAST_OUTCOMES, type ForecastOutcome } from '../../../shared/merge-queue/domain/freeze-forecast.js';

/** updateQueue's `schedule`: null removes it. */
export const ScheduleInputSchema = nullable(ScheduleInputObjectSchema);

const FreezeSchema = Type.Object(
  {
    name: Type.String(),
    reason: nullable(Type.String()),
    daily: nullable(DailyPeriodSchema),
    from: nullable(Type.String()),
    to: nullable(Type.String()),
    targets: Type.Array(Type.String()),
    paths: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

/** The schedule as stored, every field present. */
export const ScheduleResponse = Type.Object(
  {
    timeZone: Type.String(),
    windows: Type.Array(DailyPeriodSchema),
    freezes: Type.Array(FreezeSchema),
    holidays: Type.Array(HolidaySchema),
    exceptPriorityAtMost: nullable(Type.Integer()),
    exceptLabels: Type.Array(Type.String()),
    inFlightAtFreeze: InFlightAtFreezeSchema,
    announceMinutes: Type.Integer(),
  },
  { additionalProperties: false },
);

export const ClosureResponse = Type.Object(
  {
    kind: Type.Unsafe<ClosureKind>(Type.String({ enum: ['freeze', 'holiday', 'outside_window'] })),
    name: Type.String(),
    reason: nullable(Type.String()),
    targets: Type.Array(Type.String()),
    paths: Type.Array(Type.String()),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

/** getQueue's `mergeWindow`: null without a schedule (or before the watcher first read it). */
export const MergeWindowResponse = nullable(
  Type.Object(
    {
      /** `queue`: set with updateQueue; `trunk_config`: `merge.schedule` of .trunk/trunk.yaml at the target head; null with a problem. */
      source: nullable(Type.Unsafe<ScheduleOrigin>(Type.String({ enum: ['queue', 'trunk_config'] }))),
      /** Why the repository's schedule is not applied; null when nothing is wrong. */
      problem: nullable(Type.String()),
      current: Type.Array(ClosureResponse),
      next: nullable(ClosureResponse),
    },
    { additionalProperties: false },
  ),
);

export const MergeWindowForecastResponse = Type.Object(
  {
    mergeWindow: MergeWindowResponse,
    /** The closure the forecast is for: the next to begin (null: none within 35 days, or no schedule). */
    closure: nullable(ClosureResponse),
    pullRequests: Type.Array(
      Type.Object(
        {
          prNumber: Type.Integer({ minimum: 0 }),
          prTitle: Type.String(),
          position: Type.Integer({ minimum: 0 }),
          outcome: Type.Unsafe<ForecastOutcome>(Type.String({ enum: [...FORECAST_OUTCOMES] })),
          estimatedMergeAt: nullable(Type.String({ format: 'date-time' })),
          earliest: nullable(Type.String({ format: 'date-time' })),
          latest: nullable(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
