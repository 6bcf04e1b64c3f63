// What-if on a queue's history: the same workload replayed under the current settings and under
// candidate settings, side by side. Bounded: a fixed number of candidates, each play capped in
// events (a setting that cannot keep up stops and says so rather than running on).
import { DEFAULT_QUEUE_SETTINGS, type QueueSettings } from '../domain/model.js';
import { queueEfficiency, type QueueEfficiency } from './queue-efficiency.js';
import type { QueueHistory } from './queue-history.js';
import { playWorkload, type SimulatedSettings } from './workload.js';

/** The settings a simulation varies (everything else of a queue does not change its planning). */
export const SIMULATED_SETTINGS = [
  'mode',
  'concurrency',
  'bisectionConcurrency',
  'batch',
  'batchingMinSize',
  'batchingMaxWaitTimeMinutes',
  'optimizationMode',
  'pendingFailureDepth',
  'canOptimisticallyMerge',
  'testingTimeoutMinutes',
] as const satisfies readonly (keyof SimulatedSettings)[];

export type FullSettings = Required<Pick<SimulatedSettings, (typeof SIMULATED_SETTINGS)[number]>>;

export function settingsOf(q: Pick<QueueSettings, (typeof SIMULATED_SETTINGS)[number]>): FullSettings {
  return {
    mode: q.mode,
    concurrency: q.concurrency,
    bisectionConcurrency: q.bisectionConcurrency,
    batch: q.batch,
    batchingMinSize: q.batchingMinSize,
    batchingMaxWaitTimeMinutes: q.batchingMaxWaitTimeMinutes,
    optimizationMode: q.optimizationMode,
    pendingFailureDepth: q.pendingFailureDepth,
    canOptimisticallyMerge: q.canOptimisticallyMerge,
    testingTimeoutMinutes: q.testingTimeoutMinutes,
  };
}

/** What createQueue gives a queue (concurrency 1: a serial queue). */
export const DEFAULT_SETTINGS: FullSettings = settingsOf(DEFAULT_QUEUE_SETTINGS);

export interface SettingsOutcome {
  settings: FullSettings;
  efficiency: QueueEfficiency;
  /** The play hit its event limit: the settings fell too far behind to finish. */
  truncated: boolean;
}

export interface WhatIfReport {
  history: Omit<QueueHistory, 'workload'> & { pullRequests: number };
  current: SettingsOutcome;
  candidates: SettingsOutcome[];
}

export const MAX_CANDIDATES = 8;
/** Events per play: enough for a few thousand pull requests, a bound on a pathological setting. */
export const MAX_EVENTS_PER_PLAY = 100_000;

export async function play(history: QueueHistory, settings: FullSettings): Promise<SettingsOutcome> {
  const outcome = await playWorkload(settings, history.workload, { maxEvents: MAX_EVENTS_PER_PLAY });
  return { settings, efficiency: queueEfficiency(outcome), truncated: outcome.truncated };
}

/** Plays settings on one history and answers their outcomes in the same order. */
export interface Replayer {
  playAll(history: QueueHistory, settings: readonly FullSettings[]): Promise<SettingsOutcome[]>;
}

/** One play after another on the calling thread (play-pool.ts plays them side by side in threads). */
export const IN_THREAD: Replayer = {
  async playAll(history, settings) {
    const outcomes: SettingsOutcome[] = [];
    for (const s of settings) outcomes.push(await play(history, s));
    return outcomes;
  },
};

export async function whatIf(
  history: QueueHistory,
  current: FullSettings,
  candidates: Partial<FullSettings>[],
  replayer: Replayer = IN_THREAD,
): Promise<WhatIfReport> {
  if (candidates.length > MAX_CANDIDATES) throw new RangeError(`at most ${MAX_CANDIDATES} candidate settings at once`);
  const { workload, ...rest } = history;
  const [now, ...others] = await replayer.playAll(history, [current, ...candidates.map((c) => ({ ...current, ...c }))]);
  if (!now) throw new Error('no outcome for the current settings');
  return { history: { ...rest, pullRequests: workload.pullRequests.length }, current: now, candidates: others };
}
