// The shape of a schedule as people write it — updateQueue's `schedule` and `merge.schedule` in
// `.trunk/trunk.yaml` — defined once (TypeBox: a JSON Schema and a static type). What the shape
// cannot say (a real time zone, a date that exists) is scheduleProblems' (merge-schedule.ts).
import Type from 'typebox';
import { Value } from 'typebox/value';
import {
  IN_FLIGHT_AT_FREEZE,
  WEEKDAYS,
  scheduleFrom,
  scheduleProblems,
  type InFlightAtFreeze,
  type MergeSchedule,
  type MergeScheduleInput,
  type ScheduleProblem,
  type Weekday,
} from './merge-schedule.js';
import { MAX_PRIORITY_VALUE } from './model.js';

const MAX_NAME = 256;
const localTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', maxLength: 5, description: 'local time HH:MM' });
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
export const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const DailyPeriodSchema = Type.Object(
  {
    days: Type.Array(Type.Unsafe<Weekday>(Type.String({ enum: [...WEEKDAYS] })), { minItems: 1, maxItems: 7, uniqueItems: true }),
    from: localTime,
    to: localTime,
  },
  { additionalProperties: false, description: 'on each of `days`, from `from` to `to` local time; `to` not after `from` ends the next day' },
);

export const HolidaySchema = Type.Object(
  { date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 }), name: text(100) },
  { additionalProperties: false },
);

export const InFlightAtFreezeSchema = Type.Unsafe<InFlightAtFreeze>(Type.String({ enum: [...IN_FLIGHT_AT_FREEZE] }));

const FreezeInputSchema = Type.Object(
  {
    name: text(100),
    reason: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
    daily: Type.Optional(nullable(DailyPeriodSchema)),
    from: Type.Optional(nullable(text(40))),
    to: Type.Optional(nullable(text(40))),
    targets: Type.Optional(Type.Array(text(MAX_NAME), { maxItems: 100 })),
    paths: Type.Optional(
      Type.Array(text(MAX_NAME), {
        maxItems: 100,
        description: 'path globs (picomatch, from the repository root): the freeze holds pull requests changing a matching file',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ScheduleInputObjectSchema = Type.Object(
  {
    timeZone: text(64),
    windows: Type.Optional(Type.Array(DailyPeriodSchema, { maxItems: 50 })),
    freezes: Type.Optional(Type.Array(FreezeInputSchema, { maxItems: 100 })),
    holidays: Type.Optional(Type.Array(HolidaySchema, { maxItems: 400 })),
    exceptPriorityAtMost: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: MAX_PRIORITY_VALUE }))),
    exceptLabels: Type.Optional(Type.Array(text(MAX_NAME), { maxItems: 50, description: 'pull requests carrying one of these labels pass every closure' })),
    inFlightAtFreeze: Type.Optional(InFlightAtFreezeSchema),
    announceMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_080 })),
  },
  { additionalProperties: false },
);

/** A schedule read from anywhere but the API (whose validator checks the shape first): the shape, then the meaning. */
export function readSchedule(value: unknown): { ok: true; schedule: MergeSchedule } | { ok: false; problems: ScheduleProblem[] } {
  if (!Value.Check(ScheduleInputObjectSchema, value)) {
    const problems = Value.Errors(ScheduleInputObjectSchema, value)
      .filter((e) => e.keyword !== 'boolean')
      .map((e) => ({ path: e.instancePath || '/', message: e.message }));
    return { ok: false, problems };
  }
  const schedule = scheduleFrom(value as MergeScheduleInput);
  const problems = scheduleProblems(schedule);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, schedule };
}
