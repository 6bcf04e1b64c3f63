// The figures the simulation scripts report of one played workload, and their medians over seeds:
// innocent ejections per 100 pull requests, CI runs per merged pull request, median time in queue.
import { median } from '../../shared/merge-queue/simulation/percentile.js';
import { queueEfficiency } from '../../shared/merge-queue/simulation/queue-efficiency.js';
import type { WorkloadOutcome } from '../../shared/merge-queue/simulation/workload.js';

export interface PlayFigures {
  innocentPer100: number;
  ciRunsPerMerged: number;
  p50Minutes: number;
}

export function playFigures(outcome: WorkloadOutcome, pullRequests: number): PlayFigures {
  const e = queueEfficiency(outcome);
  return {
    innocentPer100: (e.innocentEjections * 100) / pullRequests,
    ciRunsPerMerged: e.ciRunsPerMerged ?? NaN,
    p50Minutes: e.timeInQueueMinutes.p50 ?? NaN,
  };
}

export function medianFigures(plays: readonly PlayFigures[]): PlayFigures {
  return {
    innocentPer100: median(plays.map((r) => r.innocentPer100)),
    ciRunsPerMerged: median(plays.map((r) => r.ciRunsPerMerged)),
    p50Minutes: median(plays.map((r) => r.p50Minutes)),
  };
}
