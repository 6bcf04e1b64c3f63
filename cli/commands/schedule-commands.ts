// queue schedule [set --file | clear] and queue forecast: a queue's merge windows and freezes, and
// what is expected to land before the next closure (docs/merge-windows.md).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { CliError, EXIT } from '../cli-error.js';
import { contextOf } from '../command-context.js';
import { fields, table, type Cell } from '../output.js';
import { checkedByTheService } from '../api-client.js';
import type { AnswerOf, RequestOf } from '../../openapi/wire.js';

type Closure = NonNullable<AnswerOf<'getMergeWindowForecast'>['closure']>;

const closureText = (c: Closure): string =>
  `${c.kind === 'outside_window' ? 'outside the merge windows' : `${c.kind} "${c.name}"`}${c.reason ? ` (${c.reason})` : ''}${scopeText(c)}: ${c.startsAt} → ${c.endsAt ?? 'beyond 35 days'}`;

/** What a scoped closure holds: its targets and path globs (nothing: every pull request). */
const scopeText = (c: Closure): string => {
  const scope = [...c.targets, ...c.paths];
  return scope.length > 0 ? ` for ${scope.join(', ')}` : '';
};

/** A schedule file: JSON or YAML (the same fields as updateQueue's `schedule`). */
function readSchedule(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(EXIT.usage, `cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (err) {
    throw new CliError(EXIT.usage, `${file} is neither JSON nor YAML: ${(err as Error).message}`);
  }
}

export function registerScheduleCommands(queue: Command): void {
  const schedule = queue
    .command('schedule')
    .description("the queue's merge windows, freezes and holidays, and the closures holding it now and next")
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const q = await ctx.api.call('getQueue', ctx.queue());
      // The forecast reads the window now; getQueue's is the watcher's last look (up to 30 s old).
      const { mergeWindow } = await ctx.api.call('getMergeWindowForecast', ctx.queue());
      const answer = { schedule: q.schedule, mergeWindow };
      ctx.out.result(answer, () => {
        if (!q.schedule) return 'no schedule: the queue is always open';
        const s = q.schedule;
        const summary = fields([
          ['time zone', s.timeZone],
          ['windows', s.windows.map((w) => `${w.days.join(',')} ${w.from}–${w.to}`).join('; ') || 'none (open unless frozen)'],
          ['holidays', s.holidays.map((h) => `${h.date} ${h.name}`).join('; ') || undefined],
          ['exception', s.exceptPriorityAtMost === null ? undefined : `priority value ≤ ${s.exceptPriorityAtMost}`],
          ['exception labels', s.exceptLabels.join(', ') || undefined],
          ['in flight', s.inFlightAtFreeze === 'merge' ? 'merges inside a closure' : 'waits for the window'],
        ]);
        const freezes: Cell[][] = s.freezes.map((f) => [
          f.name,
          f.daily ? `${f.daily.days.join(',')} ${f.daily.from}–${f.daily.to}` : `${f.from} → ${f.to}`,
          [...f.targets, ...f.paths].join(', ') || 'all',
          f.reason,
        ]);
        const now = mergeWindow?.current.map(closureText).join('\n      ') || 'open';
        const next = mergeWindow?.next ? closureText(mergeWindow.next) : 'none within 35 days';
        return `${summary}\n\n${table(['freeze', 'when', 'holds', 'reason'], freezes)}\n\nnow:  ${now}\nnext: ${next}`;
      });
    });

  schedule
    .command('set')
    .description('replace the schedule with the one in a JSON or YAML file (updateQueue `schedule`)')
    .requiredOption('--file <path>', 'the schedule: timeZone, windows, freezes, holidays, …')
    .action(async (opts: { file: string }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('updateQueue', {
        ...ctx.queue(),
        schedule: checkedByTheService<RequestOf<'updateQueue'>['schedule']>(readSchedule(opts.file)),
      });
      ctx.out.result(answer, () => `the schedule of ${answer.branch} is set (${answer.schedule?.timeZone ?? 'none'})`);
    });

  schedule
    .command('clear')
    .description('remove the schedule: the queue is always open')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('updateQueue', { ...ctx.queue(), schedule: null });
      ctx.out.result(answer, () => `the schedule of ${answer.branch} is removed`);
    });

  queue
    .command('forecast')
    .description('which queued pull requests are expected to land before the next freeze, and which will wait')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const f = await ctx.api.call('getMergeWindowForecast', ctx.queue());
      ctx.out.result(f, () => {
        if (!f.closure) return 'no closure ahead within 35 days';
        const rows: Cell[][] = f.pullRequests.map((p) => [
          p.position,
          `#${p.prNumber}`,
          p.outcome.replace('_', ' '),
          p.estimatedMergeAt,
          p.earliest && p.latest ? `${p.earliest} – ${p.latest}` : null,
          p.prTitle,
        ]);
        return `next: ${closureText(f.closure)}\n\n${table(['#', 'pr', 'outcome', 'eta', 'range', 'title'], rows)}`;
      });
    });
}
