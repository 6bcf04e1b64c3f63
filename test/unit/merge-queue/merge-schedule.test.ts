// Merge windows and freezes read in a named time zone: across daylight-saving changes, across
// midnight, scoped to impacted targets, with exceptions, holidays and one-off freezes.
import { expect } from 'chai';
import {
  MergeCalendar,
  WHOLE_QUEUE,
  scheduleProblems,
  type MergeSchedule,
  type ScheduleFreeze,
  type WindowScope,
} from '../../../shared/merge-queue/domain/merge-schedule.js';

const schedule = (over: Partial<MergeSchedule>): MergeSchedule => ({
  timeZone: 'UTC',
  windows: [],
  freezes: [],
  holidays: [],
  exceptPriorityAtMost: null,
  exceptLabels: [],
  inFlightAtFreeze: 'merge',
  announceMinutes: 60,
  ...over,
});
const freeze = (over: Partial<ScheduleFreeze>): ScheduleFreeze => ({
  name: 'freeze',
  reason: null,
  daily: null,
  from: null,
  to: null,
  targets: [],
  paths: [],
  ...over,
});
const at = (iso: string) => new Date(iso);
/** A pull request as closures see it: impacted targets, and what else a test sets (changed files unknown, no labels). */
const pr = (targets: WindowScope['targets'], priorityValue: number, over: Partial<WindowScope> = {}): WindowScope => ({
  targets,
  paths: null,
  labels: [],
  priorityValue,
  ...over,
});
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('merge schedule', () => {
  describe('windows in Europe/Berlin across the end of summer time (2026-10-25)', () => {
    const s = schedule({ timeZone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }] });

    it('keeps local hours: 09:00 is 07:00Z in summer time and 08:00Z after the change', () => {
      const cal = new MergeCalendar(s, at('2026-10-22T12:00:00Z'));
      const friday = cal.stateAt(WHOLE_QUEUE, at('2026-10-23T07:30:00Z'));
      expect(friday.open, 'Friday 09:30 CEST').to.equal(true);
      expect(cal.stateAt(WHOLE_QUEUE, at('2026-10-23T06:59:00Z')).open, 'Friday 08:59 CEST').to.equal(false);
      expect(cal.stateAt(WHOLE_QUEUE, at('2026-10-26T07:30:00Z')).open, 'Monday 08:30 CET').to.equal(false);
      expect(cal.stateAt(WHOLE_QUEUE, at('2026-10-26T08:00:00Z')).open, 'Monday 09:00 CET').to.equal(true);
    });

    it('closes at 17:00 local on Friday and opens at 09:00 local on Monday, the weekend and the change between', () => {
      const cal = new MergeCalendar(s, at('2026-10-23T12:00:00Z'));
      const before = cal.stateAt(WHOLE_QUEUE, at('2026-10-23T12:00:00Z'));
      expect(before.open && iso(before.closesAt)).to.equal('2026-10-23T15:00:00.000Z');
      const after = cal.stateAt(WHOLE_QUEUE, at('2026-10-23T15:30:00Z'));
      expect(after.open).to.equal(false);
      if (after.open) return;
      expect(iso(after.opensAt)).to.equal('2026-10-26T08:00:00.000Z');
      expect(after.closure.kind).to.equal('outside_window');
    });
  });

  describe('a nightly freeze in America/New_York across midnight and the start of daylight time (2026-03-08)', () => {
    const s = schedule({ timeZone: 'America/New_York', freezes: [freeze({ name: 'nightly', daily: { days: ['sat'], from: '22:00', to: '06:00' } })] });

    it('runs from Saturday 22:00 EST to Sunday 06:00 EDT: seven hours, not eight', () => {
      const cal = new MergeCalendar(s, at('2026-03-07T12:00:00Z'));
      const open = cal.stateAt(WHOLE_QUEUE, at('2026-03-07T12:00:00Z'));
      expect(open.open && iso(open.closesAt)).to.equal('2026-03-08T03:00:00.000Z');
      const held = cal.stateAt(WHOLE_QUEUE, at('2026-03-08T05:00:00Z'));
      expect(held.open).to.equal(false);
      if (held.open) return;
      expect(iso(held.opensAt)).to.equal('2026-03-08T10:00:00.000Z');
      expect(held.closure.name).to.equal('nightly');
      expect(cal.stateAt(WHOLE_QUEUE, at('2026-03-08T10:00:00Z')).open).to.equal(true);
    });

    it('does not hold on the other nights', () => {
      const cal = new MergeCalendar(s, at('2026-03-09T12:00:00Z'));
      expect(cal.stateAt(WHOLE_QUEUE, at('2026-03-10T05:00:00Z')).open).to.equal(true);
    });
  });

  it('a period whose end equals its start lasts a whole local day', () => {
    const s = schedule({ timeZone: 'Asia/Tokyo', freezes: [freeze({ name: 'sunday', daily: { days: ['sun'], from: '00:00', to: '00:00' } })] });
    const cal = new MergeCalendar(s, at('2026-11-28T00:00:00Z'));
    const held = cal.stateAt(WHOLE_QUEUE, at('2026-11-29T00:00:00Z'));
    expect(held.open).to.equal(false);
    if (held.open) return;
    // Sunday 2026-11-29 in Tokyo (+09:00): from Saturday 15:00Z to Sunday 15:00Z.
    expect(iso(held.opensAt)).to.equal('2026-11-29T15:00:00.000Z');
    expect(cal.stateAt(WHOLE_QUEUE, at('2026-11-28T14:59:00Z')).open).to.equal(true);
  });

  it('chains a holiday onto a weekend freeze and opens when both have ended', () => {
    const s = schedule({
      timeZone: 'Europe/London',
      freezes: [freeze({ name: 'weekend', daily: { days: ['sat', 'sun'], from: '00:00', to: '00:00' } })],
      holidays: [{ date: '2026-12-28', name: 'Boxing Day (substitute)' }],
    });
    const cal = new MergeCalendar(s, at('2026-12-26T12:00:00Z'));
    const held = cal.stateAt(WHOLE_QUEUE, at('2026-12-26T12:00:00Z'));
    expect(held.open).to.equal(false);
    if (held.open) return;
    expect(iso(held.opensAt)).to.equal('2026-12-29T00:00:00.000Z');
  });

  it('holds only pull requests that impact a frozen target, and lets an exception priority through', () => {
    const s = schedule({
      exceptPriorityAtMost: 0,
      freezes: [freeze({ name: 'backend release', reason: 'release 4.2', from: '2026-12-01T00:00', to: '2026-12-02T00:00', targets: ['backend'] })],
    });
    const cal = new MergeCalendar(s, at('2026-11-30T00:00:00Z'));
    const t = at('2026-12-01T12:00:00Z');
    expect(cal.stateAt(pr(['docs'], 100), t).open, 'docs').to.equal(true);
    expect(cal.stateAt(pr([], 100), t).open, 'nothing impacted').to.equal(true);
    expect(cal.stateAt(pr(['backend', 'docs'], 100), t).open, 'backend').to.equal(false);
    expect(cal.stateAt(pr('ALL', 100), t).open, 'everything').to.equal(false);
    expect(cal.stateAt(pr(null, 100), t).open, 'targets unknown').to.equal(false);
    expect(cal.stateAt(pr(['backend'], 0), t).open, 'urgent').to.equal(true);
  });

  it('holds only pull requests that change files under a frozen path glob, and holds one whose files are not known', () => {
    const s = schedule({
      freezes: [freeze({ name: 'backend', from: '2026-12-01T00:00', to: '2026-12-02T00:00', paths: ['services/api/**', '*.lock', '.github/**'] })],
    });
    const cal = new MergeCalendar(s, at('2026-11-30T00:00:00Z'));
    const t = at('2026-12-01T12:00:00Z');
    const changing = (...paths: string[]) => pr(null, 100, { paths });
    expect(cal.stateAt(changing('docs/guide.md', 'web/src/app.tsx'), t).open, 'docs and web').to.equal(true);
    expect(cal.stateAt(changing('docs/guide.md', 'services/api/src/routes.ts'), t).open, 'one file under services/api').to.equal(false);
    expect(cal.stateAt(changing('yarn.lock'), t).open, 'a lockfile at the root').to.equal(false);
    expect(cal.stateAt(changing('web/yarn.lock'), t).open, '*.lock matches at the root only').to.equal(true);
    expect(cal.stateAt(changing('.github/workflows/ci.yml'), t).open, 'a dot directory').to.equal(false);
    expect(cal.stateAt(changing(), t).open, 'no file changed').to.equal(true);
    expect(cal.stateAt(pr(null, 100), t).open, 'files not known').to.equal(false);
  });

  it('with targets and paths, holds a pull request that meets either', () => {
    const s = schedule({ freezes: [freeze({ from: '2026-12-01T00:00', to: '2026-12-02T00:00', targets: ['backend'], paths: ['services/**'] })] });
    const cal = new MergeCalendar(s, at('2026-11-30T00:00:00Z'));
    const t = at('2026-12-01T12:00:00Z');
    expect(cal.stateAt(pr(['backend'], 100, { paths: ['docs/a.md'] }), t).open, 'target').to.equal(false);
    expect(cal.stateAt(pr(['docs'], 100, { paths: ['services/x.ts'] }), t).open, 'path').to.equal(false);
    expect(cal.stateAt(pr(['docs'], 100, { paths: ['docs/a.md'] }), t).open, 'neither').to.equal(true);
  });

  it('lets a pull request carrying an exception label through every closure, whatever the letter case', () => {
    const s = schedule({
      exceptLabels: ['Incident'],
      freezes: [freeze({ from: '2026-12-01T00:00', to: '2026-12-02T00:00' })],
      holidays: [{ date: '2026-12-03', name: 'Holiday' }],
    });
    const cal = new MergeCalendar(s, at('2026-11-30T00:00:00Z'));
    expect(cal.stateAt(pr(null, 100, { labels: ['needs-review'] }), at('2026-12-01T12:00:00Z')).open, 'another label').to.equal(false);
    expect(cal.stateAt(pr(null, 100, { labels: ['incident'] }), at('2026-12-01T12:00:00Z')).open, 'in the freeze').to.equal(true);
    expect(cal.stateAt(pr(null, 100, { labels: ['INCIDENT'] }), at('2026-12-03T12:00:00Z')).open, 'on the holiday').to.equal(true);
  });

  it('refuses a path glob that is absolute or has surrounding spaces', () => {
    const s = schedule({ freezes: [freeze({ from: '2026-12-01T00:00', to: '2026-12-02T00:00', paths: ['/services/**', ' docs/**', 'ok/**'] })] });
    expect(scheduleProblems(s).map((p) => p.path)).to.deep.equal(['/freezes/0/paths/0', '/freezes/0/paths/1']);
  });

  it('reads a one-off freeze without an offset in the schedule time zone, and one with an offset as given', () => {
    const s = schedule({
      timeZone: 'Australia/Sydney',
      freezes: [
        freeze({ name: 'local', from: '2026-12-24T17:00', to: '2026-12-27T09:00' }),
        freeze({ name: 'offset', from: '2027-01-05T00:00:00Z', to: '2027-01-06T00:00:00Z' }),
      ],
    });
    const cal = new MergeCalendar(s, at('2026-12-20T00:00:00Z'));
    // Sydney is +11:00 in December.
    const first = cal.stateAt(WHOLE_QUEUE, at('2026-12-20T00:00:00Z'));
    expect(first.open && iso(first.closesAt)).to.equal('2026-12-24T06:00:00.000Z');
    const held = cal.stateAt(WHOLE_QUEUE, at('2026-12-25T00:00:00Z'));
    expect(!held.open && iso(held.opensAt)).to.equal('2026-12-26T22:00:00.000Z');
    expect(cal.stateAt(WHOLE_QUEUE, at('2027-01-05T01:00:00Z')).open).to.equal(false);
  });

  it('keeps the end of a one-off freeze longer than the horizon, and says when a recurring chain outlasts it', () => {
    const long = schedule({ freezes: [freeze({ name: 'migration', from: '2026-12-01T00:00:00Z', to: '2027-03-01T00:00:00Z' })] });
    const held = new MergeCalendar(long, at('2026-12-10T00:00:00Z')).stateAt(WHOLE_QUEUE, at('2026-12-10T00:00:00Z'));
    expect(!held.open && iso(held.opensAt)).to.equal('2027-03-01T00:00:00.000Z');
    const always = schedule({
      freezes: [freeze({ name: 'always', daily: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '00:00', to: '00:00' } })],
    });
    const forever = new MergeCalendar(always, at('2026-12-10T00:00:00Z')).stateAt(WHOLE_QUEUE, at('2026-12-10T00:00:00Z'));
    expect(!forever.open && forever.opensAt).to.equal(null);
  });

  it('names what is wrong with a schedule', () => {
    const problems = scheduleProblems(
      schedule({
        timeZone: 'Mars/Olympus',
        windows: [{ days: [], from: '9:00', to: '24:00' }],
        freezes: [
          freeze({ name: 'a', from: '2026-12-02T00:00', to: '2026-12-01T00:00' }),
          freeze({ name: 'a', daily: { days: ['mon'], from: '00:00', to: '01:00' }, from: '2026-12-01T00:00' }),
          freeze({ name: 'b' }),
        ],
        holidays: [{ date: '2026-13-01', name: 'x' }],
      }),
    ).map((p) => p.path);
    expect(problems).to.deep.equal([
      '/timeZone',
      '/windows/0/from',
      '/windows/0/to',
      '/windows/0/days',
      '/freezes/0/to',
      '/freezes/1/name',
      '/freezes/1',
      '/freezes/2',
      '/holidays/0/date',
    ]);
    expect(scheduleProblems(schedule({ timeZone: 'Europe/Berlin', windows: [{ days: ['mon'], from: '09:00', to: '17:00' }] }))).to.deep.equal([]);
  });
});
