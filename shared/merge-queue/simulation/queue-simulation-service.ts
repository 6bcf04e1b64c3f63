// POST /v1/simulateQueue's use case: read a queue's history (bounded), replay it under its
// current settings and candidate ones, and optionally advise settings for a goal.
import type { Queue } from '../domain/model.js';
import { readQueueHistory, type HistoryRepositories } from './queue-history.js';
import { adviseSettings, type AdviceGoal, type SettingsAdvice } from './settings-advice.js';
import { SimulationGate } from './simulation-gate.js';
import { IN_THREAD, settingsOf, whatIf, type FullSettings, type Replayer, type WhatIfReport } from './what-if.js';

export interface SimulateQueueRequest {
  days: number;
  maxPullRequests: number;
  candidates: Partial<FullSettings>[];
  goal: AdviceGoal | null;
}

export interface SimulateQueueResult extends WhatIfReport {
  advice: SettingsAdvice | null;
}

/** Runs read per replayed pull request at most (restarts and bisections make several per PR). */
const RUNS_PER_PULL_REQUEST = 20;

export class QueueSimulationService {
  private readonly gate = new SimulationGate();

  constructor(private readonly deps: { store: HistoryRepositories; clock?: () => Date; replayer?: Replayer }) {}

  /** Throws `rate_limited` when this organisation already has a replay running or waiting, or the process has too many (simulation-gate.ts). */
  simulate(queue: Queue, req: SimulateQueueRequest): Promise<SimulateQueueResult> {
    return this.gate.run(queue.orgId, () => this.replay(queue, req));
  }

  private async replay(queue: Queue, req: SimulateQueueRequest): Promise<SimulateQueueResult> {
    const now = this.deps.clock?.() ?? new Date();
    const limits = { days: req.days, maxPullRequests: req.maxPullRequests, maxRuns: req.maxPullRequests * RUNS_PER_PULL_REQUEST };
    const history = await readQueueHistory(this.deps.store, queue.id, now, limits);
    const current = settingsOf(queue);
    const replayer = this.deps.replayer ?? IN_THREAD;
    const report = await whatIf(history, current, req.candidates, replayer);
    // whatIf has played the current settings on this history: the advice starts from that outcome.
    return { ...report, advice: req.goal ? await adviseSettings(history, current, req.goal, { replayer, currentOutcome: report.current }) : null };
  }
}
