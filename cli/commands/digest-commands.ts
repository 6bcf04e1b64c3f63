// queue digest [set | clear]: the queue's daily or weekly digest (docs/digests.md) — what it would
// send now for its last ended period, and its setting.
import { Option, type Command } from 'commander';
import { contextOf } from '../command-context.js';
import { fields, table, type Cell } from '../output.js';
import type { AnswerOf } from '../../openapi/wire.js';

const CADENCES = ['daily', 'weekly'] as const;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

type Digest = NonNullable<AnswerOf<'getQueueDigest'>['digest']>;

const minutes = (m: number | null) => (m === null ? null : `${Math.round(m)} min`);

function digestText(d: Digest): string {
  const split = Object.entries(d.ejected.byVerdict)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind.replace(/_/g, ' ')} ${n}`)
    .join(', ');
  const summary = fields([
    ['period', `${d.from} → ${d.to} (${d.cadence})`],
    [
      'merged',
      `${d.merged.count} (time in queue p50 ${minutes(d.merged.timeInQueueMinutes.p50) ?? '-'}, p90 ${minutes(d.merged.timeInQueueMinutes.p90) ?? '-'})`,
    ],
    ['ejected', `${d.ejected.count}${split ? ` (${split})` : ''}`],
    ['ci runs', `${d.testRuns.started}, ${Math.round(d.testRuns.ciMinutes)} CI minutes (${Math.round(d.testRuns.wastedCiMinutes)} wasted)`],
  ]);
  const objectives: Cell[][] = d.objectives.map((o) => [o.metric, o.value, o.level, o.met ? 'met' : 'missed']);
  const flaky: Cell[][] = d.flakyTests.map((t) => [t.name, t.failedRuns, Math.round(t.ciMinutes)]);
  return [
    summary,
    d.objectives.length > 0 ? `\n${table(['objective', 'value', 'level', ''], objectives)}` : '',
    `\ncostliest flaky tests:\n${table(['test', 'failed runs', 'ci minutes'], flaky)}`,
  ].join('\n');
}

export function registerDigestCommands(queue: Command): void {
  const digest = queue
    .command('digest')
    .description("the queue's digest of its last ended period, as it would go out now")
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('getQueueDigest', ctx.queue());
      ctx.out.result(answer, () => (answer.digest ? digestText(answer.digest) : 'no digest: set one with `openmq queue digest set --cadence daily`'));
    });

  digest
    .command('set')
    .description('send a digest to webhooks and Slack once a day or once a week (updateQueue `digest`)')
    .addOption(new Option('--cadence <cadence>', 'daily or weekly').choices(CADENCES).makeOptionMandatory())
    .option('--at <HH:MM>', 'local time it goes out; the period ends there (default 09:00)')
    .addOption(new Option('--day <day>', 'the day a weekly digest goes out (default mon)').choices(DAYS))
    .option('--time-zone <zone>', 'IANA time zone of --at and --day (default UTC)')
    .action(async (opts: { cadence: Digest['cadence']; at?: string; day?: (typeof DAYS)[number]; timeZone?: string }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('updateQueue', {
        ...ctx.queue(),
        digest: {
          cadence: opts.cadence,
          ...(opts.at ? { at: opts.at } : {}),
          ...(opts.day ? { day: opts.day } : {}),
          ...(opts.timeZone ? { timeZone: opts.timeZone } : {}),
        },
      });
      const d = answer.digest;
      ctx.out.result(
        answer,
        () => `the ${d?.cadence} digest of ${answer.branch} goes out at ${d?.at}${d?.cadence === 'weekly' ? ` on ${d.day}` : ''} (${d?.timeZone})`,
      );
    });

  digest
    .command('clear')
    .description('stop sending the digest')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('updateQueue', { ...ctx.queue(), digest: null });
      ctx.out.result(answer, () => `the digest of ${answer.branch} is stopped`);
    });
}
