// tests failing|flaky|broken|quarantined of --repo (flaky-tests API, organisation --org).
import type { Command } from 'commander';
import { contextOf } from '../command-context.js';
import { table } from '../output.js';
import type { AnswerOf } from '../../openapi/wire.js';

/** A test as the failing list (with failure rates) or the flaky and broken lists (without) show it. */
type WireTest = AnswerOf<'flaky-tests/list-failing-tests'>['tests'][number] | AnswerOf<'flaky-tests/list-unhealthy-tests'>['tests'][number];

const PAGE = { page_size: 100 };
const percent = (rate: number | undefined) => (rate === undefined ? undefined : `${Math.round(rate * 100)}%`);

export function registerTestCommands(program: Command): void {
  const tests = program.command('tests').description('tests of --repo: failing, flaky, broken or quarantined');
  const base = async (command: Command) => {
    const ctx = contextOf(command);
    return { ctx, body: { repo: ctx.repo(), org_url_slug: await ctx.org(), page_query: PAGE } };
  };
  const testTable = (list: WireTest[]) =>
    table(
      ['name', 'status', 'fail 24h', 'prs 7d', 'quarantined', 'id'],
      list.map((t) => [
        t.name,
        t.status.value,
        percent('failure_rate_last_24h' in t ? t.failure_rate_last_24h : undefined),
        t.pull_requests_impacted_last_7d,
        t.quarantined,
        t.id,
      ]),
    );

  tests
    .command('failing')
    .description('tests that failed in the last hours')
    .option('--hours <n>', 'the window, at most 168', (v) => Number(v), 24)
    .action(async (opts: { hours: number }, command: Command) => {
      const { ctx, body } = await base(command);
      const end = new Date();
      const start = new Date(end.getTime() - opts.hours * 3_600_000);
      const answer = await ctx.api.call('flaky-tests/list-failing-tests', { ...body, start_time: start.toISOString(), end_time: end.toISOString() });
      ctx.out.result(answer, () => testTable(answer.tests));
    });

  for (const status of ['flaky', 'broken'] as const) {
    tests
      .command(status)
      .description(`${status} tests`)
      .action(async (_opts: unknown, command: Command) => {
        const { ctx, body } = await base(command);
        const answer = await ctx.api.call('flaky-tests/list-unhealthy-tests', { ...body, status });
        ctx.out.result(answer, () => testTable(answer.tests));
      });
  }

  tests
    .command('quarantined')
    .description('quarantined tests')
    .action(async (_opts: unknown, command: Command) => {
      const { ctx, body } = await base(command);
      const answer = await ctx.api.call('flaky-tests/list-quarantined-tests', body);
      ctx.out.result(answer, () =>
        table(
          ['name', 'status', 'setting', 'since', 'id'],
          answer.quarantined_tests.map((t) => [t.name, t.status, t.quarantine_setting, t.quarantined_at, t.test_case_id]),
        ),
      );
    });
}
