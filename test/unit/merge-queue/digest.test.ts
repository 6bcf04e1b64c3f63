// The queue digest: its period ends at a local time in a named time zone (across a daylight-saving
// change, a daily digest covers 25 hours), and it summarises only that period — merges and time in
// queue, ejections by verdict, objectives measured over it, the costliest flaky tests — into the
// event's payload and a Slack line.
import { expect } from 'chai';
import { composeDigest, digestFrom, digestJson, digestProblems, flakyCosts, lastDigestPeriod } from '../../../shared/merge-queue/domain/digest.js';
import type { ObjectiveFacts } from '../../../shared/merge-queue/domain/objectives.js';
import { mergeQueueSlackText } from '../../../shared/merge-queue/events/slack-text.js';

const at = (iso: string) => new Date(iso);
const iso = (p: { from: Date; to: Date }) => [p.from.toISOString(), p.to.toISOString()];

describe('queue digest', () => {
  it('ends a daily period at the local time: 25 hours across the end of summer time in Berlin, the day before until it is reached', () => {
    const s = digestFrom({ cadence: 'daily', at: '09:00', timeZone: 'Europe/Berlin' });
    expect(iso(lastDigestPeriod(s, at('2026-10-25T10:00:00Z')))).to.deep.equal(['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z']);
    expect(iso(lastDigestPeriod(s, at('2026-10-25T07:59:00Z'))), '08:59 local').to.deep.equal(['2026-10-23T07:00:00.000Z', '2026-10-24T07:00:00.000Z']);
  });

  it('ends a weekly period on its day: the last Monday 08:30 in New York, the one before until Monday 08:30 is reached', () => {
    const s = digestFrom({ cadence: 'weekly', at: '08:30', day: 'mon', timeZone: 'America/New_York' });
    expect(iso(lastDigestPeriod(s, at('2026-12-09T18:00:00Z'))), 'a Wednesday').to.deep.equal(['2026-11-30T13:30:00.000Z', '2026-12-07T13:30:00.000Z']);
    expect(iso(lastDigestPeriod(s, at('2026-12-07T13:00:00Z'))), 'Monday 08:00').to.deep.equal(['2026-11-23T13:30:00.000Z', '2026-11-30T13:30:00.000Z']);
    expect(iso(lastDigestPeriod(s, at('2026-12-07T13:30:00Z'))), 'Monday 08:30 exactly').to.deep.equal([
      '2026-11-30T13:30:00.000Z',
      '2026-12-07T13:30:00.000Z',
    ]);
  });

  it('takes the defaults and names what it cannot use', () => {
    expect(digestFrom({ cadence: 'weekly' })).to.deep.equal({ cadence: 'weekly', at: '09:00', day: 'mon', timeZone: 'UTC' });
    expect(digestProblems({ cadence: 'daily', at: '24:00', day: 'mon', timeZone: 'Mars/Olympus' }).map((p) => p.path)).to.deep.equal(['/timeZone', '/at']);
  });

  it('ranks flaky tests by the CI minutes of the runs they failed, then by how many, and lists five', () => {
    const t = (id: string) => ({ id, name: `test ${id}` });
    const costs = flakyCosts([
      { ciMinutes: 30, flakyTests: [t('a'), t('b')] },
      { ciMinutes: 10, flakyTests: [t('b')] },
      { ciMinutes: 5, flakyTests: [t('c'), t('d'), t('e'), t('f'), t('g')] },
    ]);
    expect(costs.map((c) => [c.testId, c.failedRuns, c.ciMinutes])).to.deep.equal([
      ['b', 2, 40],
      ['a', 1, 30],
      ['c', 1, 5],
      ['d', 1, 5],
      ['e', 1, 5],
    ]);
  });

  it('summarises only the period: merges and their time in queue, ejections by verdict, objectives measured over it', () => {
    const period = { from: at('2026-12-07T09:00:00Z'), to: at('2026-12-08T09:00:00Z') };
    const merged = (submitted: string, mergedAt: string) => ({ submittedAt: at(submitted), mergedAt: at(mergedAt) });
    const facts: ObjectiveFacts = {
      merged: [
        merged('2026-12-07T10:00:00Z', '2026-12-07T10:30:00Z'),
        merged('2026-12-07T11:00:00Z', '2026-12-07T13:00:00Z'),
        merged('2026-12-08T09:00:00Z', '2026-12-08T09:10:00Z'),
      ],
      headSubmittedAt: at('2026-12-08T08:00:00Z'),
      runsCreatedAt: [at('2026-12-07T10:00:00Z'), at('2026-12-07T11:00:00Z'), at('2026-12-07T12:00:00Z'), at('2026-12-08T09:05:00Z')],
      ejections: [
        { at: at('2026-12-07T12:00:00Z'), verdict: 'yours' },
        { at: at('2026-12-07T14:00:00Z'), verdict: 'flaky' },
        { at: at('2026-12-08T09:30:00Z'), verdict: 'flaky' },
      ],
    };
    const digest = composeDigest({
      setting: digestFrom({ cadence: 'daily' }),
      period,
      facts,
      cost: { testRunsStarted: 3, ciMinutes: 91.234, wastedCiMinutes: 20 },
      objectives: [
        { metric: 'time_in_queue_p50', warning: 60, critical: 120, windowHours: 24, forMinutes: 15 },
        { metric: 'ci_runs_per_merged', warning: 2, critical: 4, windowHours: 24, forMinutes: 15 },
        { metric: 'not_its_fault_share', warning: 0.5, critical: 0.9, windowHours: 24, forMinutes: 15 },
      ],
      failedRuns: [{ ciMinutes: 12, flakyTests: [{ id: 't1', name: 'checkout_total' }] }],
    });
    expect(digest.merged).to.deep.equal({ count: 2, timeInQueueMinutes: { p50: 75, p90: 111 } });
    expect(digest.ejected.count).to.equal(2);
    expect(digest.ejected.byVerdict).to.deep.include({ yours: 1, flaky: 1, target_branch: 0 });
    expect(digest.testRuns).to.deep.equal({ started: 3, ciMinutes: 91.23, wastedCiMinutes: 20 });
    expect(digest.objectives).to.deep.equal([
      { metric: 'time_in_queue_p50', value: 75, level: 'warning', met: false },
      { metric: 'ci_runs_per_merged', value: 1.5, level: 'ok', met: true },
      { metric: 'not_its_fault_share', value: 0.5, level: 'warning', met: false },
    ]);
    expect(digest.flakyTests).to.deep.equal([{ testId: 't1', name: 'checkout_total', failedRuns: 1, ciMinutes: 12 }]);

    const slack = mergeQueueSlackText({
      type: 'queue.digest',
      repository: { host: 'github.com', owner: 'acme', name: 'widgets' },
      target_branch: 'main',
      digest: digestJson(digest) as unknown as Record<string, unknown>,
    });
    expect(slack).to.equal(
      'Merge queue acme/widgets → main: daily digest, 2026-12-07 09:00 UTC to 2026-12-08 09:00 UTC: 2 merged (time in queue p50 75 min, p90 111 min); ' +
        '2 ejected (yours 1, flaky 1); 3 CI runs, 91 CI minutes (20 wasted); objectives met: ci runs per merged; ' +
        'missed: time in queue p50 (warning), not its fault share (warning); costliest flaky tests: checkout_total (1 run, 12 CI min)',
    );
  });
});
