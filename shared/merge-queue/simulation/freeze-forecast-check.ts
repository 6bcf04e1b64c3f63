// The forecast before a freeze against what then happens (docs/merge-windows.md): a workload is
// played through the engine with a one-off freeze; some minutes before it begins the forecast is
// taken as getMergeWindowForecast would answer it, and after the play each forecast is compared
// with whether the pull request merged before the freeze began. Tested pull requests are held
// through the freeze (`inFlightAtFreeze: hold`), so "landed before it" is unambiguous.
import type { ForecastOutcome } from '../domain/freeze-forecast.js';
import type { MergeSchedule } from '../domain/merge-schedule.js';
import { MergeWindowService } from '../services/merge-window-service.js';
import { TimeToMergeService } from '../services/time-to-merge-service.js';
import { ScheduleSource } from '../services/schedule-source.js';
import { ChangedPathsSource } from '../services/changed-paths-source.js';
import { createLogger } from '../../platform/logging.js';
import { SIM_START, type Simulator } from './simulator.js';
import { entryIdOf, playWorkload, type SimulatedSettings, type Workload } from './workload.js';

const MINUTE = 60_000;

export interface FreezeWindowMinutes {
  /** Minutes after the workload's start. */
  from: number;
  to: number;
  /** When the forecast is taken. */
  forecastAt: number;
}

/** Per outcome of the forecast: how many pull requests got it, and how many of them merged before the freeze began. */
export type ForecastTally = Record<ForecastOutcome, { forecast: number; landed: number }>;

export function freezeSchedule(f: FreezeWindowMinutes): MergeSchedule {
  const iso = (m: number) => new Date(SIM_START.getTime() + m * MINUTE).toISOString();
  return {
    timeZone: 'UTC',
    windows: [],
    freezes: [{ name: 'freeze', reason: null, daily: null, from: iso(f.from), to: iso(f.to), targets: [], paths: [] }],
    holidays: [],
    exceptPriorityAtMost: null,
    exceptLabels: [],
    inFlightAtFreeze: 'hold',
    announceMinutes: 60,
  };
}

export async function checkFreezeForecast(settings: SimulatedSettings, w: Workload, f: FreezeWindowMinutes): Promise<ForecastTally> {
  const forecast = new Map<string, ForecastOutcome>();
  const look = async (sim: Simulator) => {
    const timeToMerge = new TimeToMergeService({ store: sim.store });
    const service = new MergeWindowService({
      store: sim.store,
      providers: sim.forge.registry(),
      schedules: new ScheduleSource(),
      changedPaths: new ChangedPathsSource(createLogger('silent')),
      timeToMerge,
      logger: createLogger('silent'),
      requestPlan: async () => {},
    });
    const answer = await service.forecast(sim.queue, new Date(sim.now));
    for (const p of answer.pullRequests) forecast.set(entryIdOf(p.prNumber - 1), p.outcome);
  };
  const outcome = await playWorkload({ ...settings, schedule: freezeSchedule(f) }, w, { looks: [{ atMinute: f.forecastAt, look }] });
  const freezeStart = SIM_START.getTime() + f.from * MINUTE;
  const tally: ForecastTally = {
    lands: { forecast: 0, landed: 0 },
    may_land: { forecast: 0, landed: 0 },
    waits: { forecast: 0, landed: 0 },
    not_held: { forecast: 0, landed: 0 },
    unknown: { forecast: 0, landed: 0 },
  };
  for (const e of outcome.entries) {
    const said = forecast.get(e.id);
    if (!said) continue;
    const mergedAt = e.state === 'merged' ? e.history.findLast((h) => h.to === 'merged')?.at.getTime() : undefined;
    tally[said].forecast += 1;
    if (mergedAt !== undefined && mergedAt <= freezeStart) tally[said].landed += 1;
  }
  return tally;
}
