// Builds entry histories for the metrics tests: each step is (minute, to, reason, run?), and
// `from` is the previous step's state, as the repository records it.
import type { EntryState, HistoryEntry, Reason } from '../../../../shared/merge-queue/domain/model.js';

export const T0 = Date.parse('2026-03-02T09:00:00.000Z');
export const at = (minute: number): Date => new Date(T0 + minute * 60_000);

export type Step = [minute: number, to: EntryState, reason: Reason, testRunId?: string];

export function history(...steps: Step[]): HistoryEntry[] {
  let from: EntryState | null = null;
  return steps.map(([minute, to, reason, testRunId]) => {
    const h: HistoryEntry = { at: at(minute), from, to, reason };
    if (testRunId !== undefined) h.testRunId = testRunId;
    from = to;
    return h;
  });
}

/** Submitted at `minute` (not ready), admitted at `admitted`. */
export function submitted(minute: number, admitted: number): Step[] {
  return [
    [minute, 'not_ready', 'api_requested'],
    [admitted, 'pending', 'merge_item_now_ready'],
  ];
}
