// The merge window as the watcher stores it: what began, what ended and what to announce, each
// once however often it looks.
import { expect } from 'chai';
import { MergeCalendar, type MergeSchedule } from '../../../shared/merge-queue/domain/merge-schedule.js';
import { queueWindowAt, windowChanges, type QueueWindow } from '../../../shared/merge-queue/domain/merge-window.js';

const schedule: MergeSchedule = {
  timeZone: 'Europe/Berlin',
  windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }],
  freezes: [],
  holidays: [],
  exceptPriorityAtMost: null,
  exceptLabels: [],
  inFlightAtFreeze: 'merge',
  announceMinutes: 60,
};

/** One look of the watcher at `iso`, after the stored window `previous`. */
function look(previous: QueueWindow | null, iso: string) {
  const at = new Date(iso);
  const now = queueWindowAt(new MergeCalendar(schedule, at), 'queue', at, previous);
  return windowChanges(previous, now, schedule.announceMinutes, at);
}
const names = (w: { startsAt: Date }[]) => w.map((c) => c.startsAt.toISOString());

describe('merge window changes', () => {
  it('announces the evening close an hour ahead, once; says it began and ended, once each', () => {
    // Wednesday 2026-12-02, Berlin is UTC+1: the window closes at 16:00Z and reopens Thursday 08:00Z.
    const first = look(null, '2026-12-02T14:00:00Z');
    expect([first.started, first.ended, first.announce]).to.deep.equal([[], [], null]);
    const announced = look(first.window, '2026-12-02T15:10:00Z');
    expect(announced.announce?.startsAt.toISOString()).to.equal('2026-12-02T16:00:00.000Z');
    expect(announced.announce?.endsAt?.toISOString()).to.equal('2026-12-03T08:00:00.000Z');
    const again = look(announced.window, '2026-12-02T15:40:00Z');
    expect(again.announce).to.equal(null);
    const closed = look(again.window, '2026-12-02T16:00:30Z');
    expect(names(closed.started)).to.deep.equal(['2026-12-02T16:00:00.000Z']);
    // Inside the gap, later looks find the same closure: nothing begins or ends again.
    const later = look(closed.window, '2026-12-02T16:01:00Z');
    expect([later.started, later.ended]).to.deep.equal([[], []]);
    expect(JSON.stringify(later.window)).to.equal(JSON.stringify(closed.window));
    const opened = look(later.window, '2026-12-03T08:00:30Z');
    expect([names(opened.started), names(opened.ended)]).to.deep.equal([[], ['2026-12-02T16:00:00.000Z']]);
  });

  it('a first look inside a closed period sees the closure from where the last window ended', () => {
    const first = look(null, '2026-12-05T12:00:00Z');
    expect(names(first.window.current)).to.deep.equal(['2026-12-04T16:00:00.000Z']);
    expect(first.window.current[0]!.endsAt?.toISOString()).to.equal('2026-12-07T08:00:00.000Z');
  });
});
