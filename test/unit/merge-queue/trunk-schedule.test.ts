// `merge.schedule` in .trunk/trunk.yaml: the same fields as updateQueue's `schedule`, checked for
// shape and meaning; a file without it, or without a `merge`, has none; what cannot be used says why.
import { expect } from 'chai';
import { parseTrunkSchedule } from '../../../shared/merge-queue/domain/trunk-config.js';

describe('.trunk/trunk.yaml merge.schedule', () => {
  it('reads a schedule with the defaults filled in', () => {
    const parsed = parseTrunkSchedule(
      [
        'version: 0.1',
        'merge:',
        '  required_statuses: [ci]',
        '  schedule:',
        '    timeZone: America/New_York',
        '    windows:',
        '      - {days: [mon, tue], from: "09:00", to: "17:00"}',
        '    holidays:',
        '      - {date: "2026-11-26", name: Thanksgiving}',
        '',
      ].join('\n'),
    );
    expect(parsed).to.deep.equal({
      kind: 'schedule',
      schedule: {
        timeZone: 'America/New_York',
        windows: [{ days: ['mon', 'tue'], from: '09:00', to: '17:00' }],
        freezes: [],
        holidays: [{ date: '2026-11-26', name: 'Thanksgiving' }],
        exceptPriorityAtMost: null,
        exceptLabels: [],
        inFlightAtFreeze: 'merge',
        announceMinutes: 60,
      },
    });
  });

  it('has none without the file, without merge, or without merge.schedule', () => {
    expect(parseTrunkSchedule(null)).to.deep.equal({ kind: 'absent' });
    expect(parseTrunkSchedule('version: 0.1\n')).to.deep.equal({ kind: 'none' });
    expect(parseTrunkSchedule('version: 0.1\nmerge:\n  required_statuses: [ci]\n')).to.deep.equal({ kind: 'none' });
  });

  it('says why a schedule cannot be used: its shape, its meaning, or the file', () => {
    const shape = parseTrunkSchedule('merge:\n  schedule:\n    timeZone: UTC\n    windows: [{days: [someday], from: "9", to: "17:00"}]\n    color: blue\n');
    expect(shape.kind).to.equal('invalid');
    if (shape.kind !== 'invalid') return;
    expect(shape.message).to.contain('/windows/0/days/0').and.to.contain('/windows/0/from');
    const meaning = parseTrunkSchedule('merge:\n  schedule:\n    timeZone: Nowhere/Atlantis\n');
    expect(meaning.kind === 'invalid' && meaning.message).to.contain('/timeZone "Nowhere/Atlantis" is not an IANA time zone');
    const file = parseTrunkSchedule('version: 2\n');
    expect(file.kind === 'invalid' && file.message).to.contain('only 0.1 is supported');
  });
});
