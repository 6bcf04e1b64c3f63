// Queue objectives in virtual time: what each measure reads, and a level entered only once the
// measure has held it for `forMinutes`, each entry one change (breached, recovered).
import { expect } from 'chai';
import {
  advance,
  measure,
  objectiveProblems,
  type ObjectiveFacts,
  type ObjectiveStatus,
  type QueueObjective,
} from '../../../shared/merge-queue/domain/objectives.js';

const T0 = new Date('2026-12-01T12:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const objective = (over: Partial<QueueObjective> = {}): QueueObjective => ({
  metric: 'time_in_queue_p50',
  warning: 60,
  critical: 120,
  windowHours: 24,
  forMinutes: 15,
  ...over,
});
const none: ObjectiveFacts = { merged: [], headSubmittedAt: null, runsCreatedAt: [], ejections: [] };

describe('queue objectives', () => {
  it('measures time in queue of merged pull requests in the window, the head age, runs per merge and the share of ejections not the author’s fault', () => {
    const facts: ObjectiveFacts = {
      // Minutes in queue: 30, 60, 90, 240 (the last merged 25 hours ago: outside a 24-hour window).
      merged: [
        { submittedAt: at(-30), mergedAt: at(0) },
        { submittedAt: at(-120), mergedAt: at(-60) },
        { submittedAt: at(-200), mergedAt: at(-110) },
        { submittedAt: at(-25 * 60 - 240), mergedAt: at(-25 * 60) },
      ],
      headSubmittedAt: at(-45),
      runsCreatedAt: [at(-10), at(-70), at(-130), at(-140), at(-26 * 60)],
      ejections: [
        { at: at(-5), verdict: 'flaky' },
        { at: at(-50), verdict: 'yours' },
        { at: at(-30 * 60), verdict: 'infrastructure' },
      ],
    };
    expect(measure(objective({ metric: 'time_in_queue_p50' }), facts, T0)).to.equal(60);
    expect(measure(objective({ metric: 'time_in_queue_p90' }), facts, T0)).to.equal(84);
    expect(measure(objective({ metric: 'head_age' }), facts, T0)).to.equal(45);
    expect(measure(objective({ metric: 'ci_runs_per_merged' }), facts, T0)).to.equal(4 / 3);
    expect(measure(objective({ metric: 'not_its_fault_share' }), facts, T0)).to.equal(0.5);
    expect(measure(objective({ metric: 'time_in_queue_p50', windowHours: 48 }), facts, T0)).to.equal(75);
    expect(measure(objective({ metric: 'time_in_queue_p50' }), none, T0), 'nothing merged').to.equal(null);
    expect(measure(objective({ metric: 'head_age' }), none, T0), 'nothing queued').to.equal(0);
  });

  it('enters a level only after the measure held it for forMinutes, and names each change once', () => {
    const o = objective();
    let status: ObjectiveStatus | null = null;
    const changes: string[] = [];
    // (minute, measure): slow for 10 minutes, back to normal, then slow for good, critical, recovered.
    for (const [minute, value] of [
      [0, 30],
      [1, 70],
      [10, 70],
      [11, 40],
      [20, 80],
      [34, 80],
      [35, 90],
      [36, 130],
      [60, 130],
      [80, 20],
      [94, 20],
      [95, 20],
    ] as const) {
      const next = advance(o, status, value, at(minute));
      status = next.status;
      if (next.change) changes.push(`${minute}: ${next.change} ${status.level} since ${(status.since.getTime() - T0.getTime()) / 60_000}`);
    }
    expect(changes).to.deep.equal(['35: breached warning since 20', '60: breached critical since 36', '95: recovered ok since 80']);
    expect(status).to.deep.include({ level: 'ok', value: 20, pending: null });
  });

  it('with forMinutes 0 a level is entered at once', () => {
    const first = advance(objective({ forMinutes: 0 }), null, 150, T0);
    expect([first.change, first.status.level]).to.deep.equal(['breached', 'critical']);
  });

  it('names what is wrong with a queue’s objectives', () => {
    expect(objectiveProblems([objective(), objective({ critical: 30 })]).map((p) => p.path)).to.deep.equal(['/1/metric', '/1/critical']);
  });
});
