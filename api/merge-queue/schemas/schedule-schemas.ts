// The wire shape of a queue's merge windows and freezes (updateQueue's `schedule`, getQueue's
// answer). What the shape cannot say — a real time zone, a date that exists, a freeze that ends
// after it begins — is checked by the domain (scheduleProblems) and answered as 400 with paths.
import Type from 'typebox';
import { IN_FLIGHT_AT_FREEZE, WEEKDAYS, type ClosureKind, type InFlightAtFreeze, type Weekday } from '../../../shared/merge-queue/domain/merge-schedule.js';
import { MAX_PRIORITY_VALUE } from '../../../shared/merge-queue/domain/model.js';
import { FORECAST_OUTCOMES, type ForecastOutcome } from '../../../shared/merge-queue/domain/freeze-forecast.js';
import { MAX_NAME } from '../../validation/common.js';

const localTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', maxLength: 5, description: 'local time HH:MM' });
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const DailyPeriodSchema = Type.Object(
  {
    days: Type.Array(Type.Unsafe<Weekday>(Type.String({ enum: [...WEEKDAYS] })), { minItems: 1, maxItems: 7, uniqueItems: true }),
    from: localTime,
    to: localTime,
  },
  { additionalProperties: false, description: 'on each of `days`, from `from` to `to` local time; `to` not after `from` ends the next day' },
);

const FreezeInputSchema = Type.Object(
  {
    name: text(100),
    reason: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
    daily: Type.Optional(nullable(DailyPeriodSchema)),
    from: Type.Optional(nullable(text(40))),
    to: Type.Optional(nullable(text(40))),
    targets: Type.Optional(Type.Array(text(MAX_NAME), { maxItems: 100 })),
  },
  { additionalProperties: false },
);

const HolidaySchema = Type.Object(
  { date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 }), name: text(100) },
  { additionalProperties: false },
);

const scheduleProperties = {
  timeZone: text(64),
  windows: Type.Optional(Type.Array(DailyPeriodSchema, { maxItems: 50 })),
  freezes: Type.Optional(Type.Array(FreezeInputSchema, { maxItems: 100 })),
  holidays: Type.Optional(Type.Array(HolidaySchema, { maxItems: 400 })),
  exceptPriorityAtMost: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: MAX_PRIORITY_VALUE }))),
  inFlightAtFreeze: Type.Optional(Type.Unsafe<InFlightAtFreeze>(Type.String({ enum: [...IN_FLIGHT_AT_FREEZE] }))),
  announceMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_080 })),
};

/** updateQueue's `schedule`: null removes it. */
export const ScheduleInputSchema = nullable(Type.Object(scheduleProperties, { additionalProperties: false }));

const FreezeSchema = Type.Object(
  {
    name: Type.String(),
    reason: nullable(Type.String()),
    daily: nullable(DailyPeriodSchema),
    from: nullable(Type.String()),
    to: nullable(Type.String()),
    targets: Type.Array(Type.String()),
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
    inFlightAtFreeze: Type.Unsafe<InFlightAtFreeze>(Type.String({ enum: [...IN_FLIGHT_AT_FREEZE] })),
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
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

/** getQueue's `mergeWindow`: null without a schedule (or before the watcher first read it). */
export const MergeWindowResponse = nullable(
  Type.Object({ current: Type.Array(ClosureResponse), next: nullable(ClosureResponse) }, { additionalProperties: false }),
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
