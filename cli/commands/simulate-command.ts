// simulate: the queue's own history replayed under its settings and candidate ones, side by side
// (POST /v1/simulateQueue; docs/efficiency.md explains the measures).
import type { Command } from 'commander';
import { CliError, EXIT } from '../cli-error.js';
import { contextOf } from '../command-context.js';
import { table, type Cell } from '../output.js';
import { setting } from './queue-commands.js';
import type { AnswerOf, RequestOf } from '../../openapi/wire.js';
import { checkedByTheService } from '../api-client.js';

type SimulateAnswer = AnswerOf<'simulateQueue'>;
type Outcome = SimulateAnswer['current'];
type Request = RequestOf<'simulateQueue'>;

const num = (v: number | null) => (v === null ? '–' : Number(v.toFixed(2)));

function render(a: SimulateAnswer): string {
  const rows: [string, Outcome][] = [['current', a.current], ...a.candidates.map((c, i): [string, Outcome] => [`candidate ${i + 1}`, c])];
  if (a.advice?.best) rows.push(['advised', a.advice.best]);
  const cells: Cell[][] = rows.map(([label, o]) => {
    const e = o.efficiency;
    return [
      label,
      num(e.timeInQueueMinutes.p50),
      num(e.timeInQueueMinutes.p90),
      num(e.timeInQueueMinutes.p99),
      num(e.mergesPerHour),
      num(e.ciRunsPerMerged),
      num(e.ciMinutesPerMerged),
      e.innocentEjections,
      o.truncated ? 'truncated' : '',
    ];
  });
  const h = a.history;
  return [
    `history: ${h.from} – ${h.to}, ${h.pullRequests} pull requests replayed${h.sampled ? ' (sampled: the most recent)' : ''}`,
    ...h.notes.map((n) => `  ${n}`),
    '',
    table(['settings', 'p50 min', 'p90 min', 'p99 min', 'merges/h', 'CI runs/merged', 'CI min/merged', 'innocent ejections', ''], cells),
    ...(a.advice?.reasons ?? []).map((r) => `\n${r}`),
  ].join('\n');
}

export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description("replay the queue's recorded history under its settings and candidate ones, side by side")
    .option('--days <n>', 'how many days of history (1–90)', (v) => Number(v))
    .option('--max-prs <n>', 'at most this many pull requests, the most recent (1–1000)', (v) => Number(v))
    .option(
      '--candidate <key=value,...>',
      'candidate settings, e.g. concurrency=6,batch=true; repeatable',
      (v: string, all: Record<string, unknown>[]) => [...all, v.split(',').reduce<Record<string, unknown>>((acc, pair) => setting(pair, acc), {})],
      [],
    )
    .option('--goal <latency|cost>', 'also advise the settings best for lowest latency, or lowest CI cost within --max-p50')
    .option('--max-p50 <minutes>', 'with --goal cost: the p50 time in queue not to exceed', (v) => Number(v))
    .option('--max-p95 <minutes>', 'with --goal cost: also the p95 time in queue not to exceed', (v) => Number(v))
    .action(
      async (
        opts: { days?: number; maxPrs?: number; candidate: Record<string, unknown>[]; goal?: string; maxP50?: number; maxP95?: number },
        command: Command,
      ) => {
        const ctx = contextOf(command);
        let goal: Request['goal'];
        if (opts.goal === 'latency') goal = { kind: 'lowest_latency' };
        else if (opts.goal === 'cost') {
          if (opts.maxP50 === undefined) throw new CliError(EXIT.usage, '--goal cost needs --max-p50 <minutes>');
          goal = { kind: 'lowest_ci_cost', maxP50Minutes: opts.maxP50, ...(opts.maxP95 !== undefined ? { maxP95Minutes: opts.maxP95 } : {}) };
        } else if (opts.goal !== undefined) throw new CliError(EXIT.usage, `--goal is latency or cost, got "${opts.goal}"`);
        const answer = await ctx.api.call('simulateQueue', {
          ...ctx.queue(),
          ...(opts.days !== undefined ? { days: opts.days } : {}),
          ...(opts.maxPrs !== undefined ? { maxPullRequests: opts.maxPrs } : {}),
          ...(opts.candidate.length > 0 ? { candidates: checkedByTheService<Request['candidates']>(opts.candidate) } : {}),
          ...(goal ? { goal } : {}),
        });
        ctx.out.result(answer, () => render(answer));
      },
    );
}
