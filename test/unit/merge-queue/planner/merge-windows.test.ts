// Merge windows in the planner: nothing starts while the queue is closed for it or too close to a
// closure for a run to finish; in-flight work finishes and merges or waits as the schedule says;
// a freeze of some targets lets the others pass; the window's reopening starts the waiting ones
// in queue order.
import { expect } from 'chai';
import { T0, at, entry, held, mergeOf, passed, planOf, run, starts, type Scenario } from '../../../../shared/merge-queue/simulation/builders.js';
import type { MergeSchedule, ScheduleFreeze } from '../../../../shared/merge-queue/domain/merge-schedule.js';
import type { NoteEntryAction } from '../../../../shared/merge-queue/domain/planner/types.js';

// T0 is 2026-01-01T00:00Z; the freeze runs from minute 60 to minute 180 (02:00–04:00 in Berlin, UTC+1).
const freeze = (over: Partial<ScheduleFreeze> = {}): ScheduleFreeze => ({
  name: 'release',
  reason: 'release 4.2',
  daily: null,
  from: '2026-01-01T02:00',
  to: '2026-01-01T04:00',
  targets: [],
  paths: [],
  ...over,
});
const schedule = (over: Partial<MergeSchedule> = {}): MergeSchedule => ({
  timeZone: 'Europe/Berlin',
  windows: [],
  freezes: [freeze()],
  holidays: [],
  exceptPriorityAtMost: null,
  exceptLabels: [],
  inFlightAtFreeze: 'merge',
  announceMinutes: 60,
  ...over,
});
const scenario = (s: Partial<MergeSchedule>, rest: Scenario): Scenario => ({ ...rest, queue: { concurrency: 1, ...rest.queue, schedule: schedule(s) } });
const notes = (r: ReturnType<typeof planOf>) => r.actions.filter((a): a is NoteEntryAction => a.kind === 'note_entry');

describe('planner: merge windows', () => {
  it('starts nothing in a freeze, notes the wait once, and wakes when it ends', () => {
    const r = planOf(scenario({}, { entries: [entry(1)], now: at(90) }));
    expect(starts(r.actions)).to.deep.equal([]);
    expect(notes(r).map((n) => [n.entry.entryId, n.reason])).to.deep.equal([['e1', 'waiting_for_merge_window']]);
    expect(notes(r)[0]!.detail).to.contain('the freeze "release" (release 4.2), until 2026-01-01 04:00 GMT+1');
    expect(r.wakeAt?.toISOString()).to.equal(at(180).toISOString());
    const again = planOf(
      scenario({}, { entries: [entry(1, { history: [{ at: at(90), from: 'pending', to: 'pending', reason: 'waiting_for_merge_window' }] })], now: at(100) }),
    );
    expect(again.actions).to.deep.equal([]);
  });

  it('does not start a run that would not finish before the freeze, and starts one that would', () => {
    const late = planOf(scenario({}, { entries: [entry(1)], now: at(40), runEstimateSeconds: 30 * 60 }));
    expect(starts(late.actions)).to.deep.equal([]);
    expect(notes(late)[0]!.detail).to.contain('a run (about 30 min) would not finish before the freeze "release"');
    expect(late.wakeAt?.toISOString(), 'wakes when the freeze ends').to.equal(at(180).toISOString());
    const early = planOf(scenario({}, { entries: [entry(1)], now: at(40), runEstimateSeconds: 15 * 60 }));
    expect(starts(early.actions)).to.deep.equal(['1|']);
    const unknown = planOf(scenario({}, { entries: [entry(1)], now: at(40), runEstimateSeconds: null }));
    expect(starts(unknown.actions), 'no estimate: only the closure itself holds').to.deep.equal(['1|']);
  });

  it('lets a run in flight when the freeze begins finish and merge, or hold its merge for the window', () => {
    const inFlight = { entries: [held(1, 'r1', 'tests_passed')], runs: [passed(run('r1', [1]))], now: at(90) };
    expect(mergeOf(planOf(scenario({ inFlightAtFreeze: 'merge' }, inFlight)).actions)).to.equal('1@r1');
    const hold = planOf(scenario({ inFlightAtFreeze: 'hold' }, inFlight));
    expect(mergeOf(hold.actions)).to.equal(null);
    expect(hold.wakeAt?.toISOString()).to.equal(at(180).toISOString());
    expect(mergeOf(planOf(scenario({ inFlightAtFreeze: 'hold' }, { ...inFlight, now: at(180) })).actions), 'after the freeze').to.equal('1@r1');
  });

  it('holds only pull requests that impact a frozen target: the others go past, without them in their base', () => {
    const r = planOf(
      scenario(
        { freezes: [freeze({ targets: ['backend'] })] },
        { entries: [entry(1), entry(2), entry(3)], targets: { e1: ['backend'], e2: ['docs'], e3: 'ALL' }, now: at(90) },
      ),
    );
    expect(starts(r.actions)).to.deep.equal(['2|']);
    expect(notes(r).map((n) => n.entry.entryId)).to.deep.equal(['e1', 'e3']);
  });

  it('holds only pull requests that change frozen paths, and one whose files are not known', () => {
    const r = planOf(
      scenario(
        { freezes: [freeze({ paths: ['services/api/**'] })] },
        { entries: [entry(1), entry(2), entry(3)], changedPaths: { e1: ['services/api/main.go'], e2: ['docs/index.md'], e3: null }, now: at(90) },
      ),
    );
    expect(starts(r.actions)).to.deep.equal(['2|']);
    expect(notes(r).map((n) => n.entry.entryId)).to.deep.equal(['e1', 'e3']);
  });

  it('lets a pull request carrying an exception label through a freeze', () => {
    const r = planOf(scenario({ exceptLabels: ['hotfix'] }, { entries: [entry(1, { prLabels: ['docs'] }), entry(2, { prLabels: ['HotFix'] })], now: at(90) }));
    expect(starts(r.actions)).to.deep.equal(['2|']);
  });

  it('lets an exception priority through a freeze', () => {
    const r = planOf(scenario({ exceptPriorityAtMost: 0 }, { entries: [entry(1), entry(2, { priorityValue: 0, priorityName: 'urgent' })], now: at(90) }));
    expect(starts(r.actions)).to.deep.equal(['2|']);
  });

  it('starts the waiting pull requests in queue order when the window reopens', () => {
    const waiting = [entry(3, { seq: 3 }), entry(1, { seq: 1 }), entry(2, { seq: 2, priorityValue: 10, priorityName: 'high' })];
    const r = planOf(scenario({}, { entries: waiting, now: at(180), queue: { concurrency: 2 } }));
    expect(starts(r.actions)).to.deep.equal(['2|', '1|2']);
    expect(notes(r)).to.deep.equal([]);
  });

  it('keeps a direct merge for the window', () => {
    const facts = { e1: { basedOnTargetTip: true, requiredStatusesPassing: true } };
    const closed = planOf(scenario({}, { entries: [entry(1, { state: 'not_ready' })], directMerge: facts, queue: { directMergeMode: 'always' }, now: at(90) }));
    expect(mergeOf(closed.actions)).to.equal(null);
    const open = planOf(scenario({}, { entries: [entry(1, { state: 'not_ready' })], directMerge: facts, queue: { directMergeMode: 'always' }, now: T0 }));
    expect(mergeOf(open.actions)).to.equal('1@direct');
  });

  it('holds outside recurring windows and says nothing while paused', () => {
    const windows = [{ days: ['thu' as const], from: '09:00', to: '17:00' }];
    const closed = planOf(scenario({ windows, freezes: [] }, { entries: [entry(1)], now: at(0) }));
    expect(starts(closed.actions)).to.deep.equal([]);
    expect(closed.wakeAt?.toISOString(), 'Thursday 09:00 in Berlin').to.equal('2026-01-01T08:00:00.000Z');
    const paused = planOf(scenario({ windows, freezes: [] }, { entries: [entry(1)], now: at(0), queue: { state: 'paused' } }));
    expect(paused.actions).to.deep.equal([]);
  });
});
