// queue show|create|update|pause|resume|drain|delete for the queue of --repo/--branch.
import { Option, type Command } from 'commander';
import { CliError, EXIT } from '../cli-error.js';
import { contextOf } from '../command-context.js';
import { fields, table, type Cell } from '../output.js';
import { checkedByTheService } from '../api-client.js';
import type { RequestOf } from '../../openapi/wire.js';
import { registerScheduleCommands } from './schedule-commands.js';
import { registerDigestCommands } from './digest-commands.js';

const MODES = ['single', 'parallel'] as const satisfies readonly NonNullable<RequestOf<'createQueue'>['mode']>[];

/** `key=value`: the value read as JSON when it is JSON (numbers, booleans, lists), else as text. */
export function setting(pair: string, all: Record<string, unknown>): Record<string, unknown> {
  const at = pair.indexOf('=');
  if (at <= 0) throw new CliError(EXIT.usage, `--set takes key=value, got "${pair}"`);
  const raw = pair.slice(at + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return { ...all, [pair.slice(0, at)]: value };
}

export function registerQueueCommands(program: Command): void {
  const queue = program.command('queue').description('the merge queue of --repo and --branch');

  queue
    .command('show')
    .description('the queue, its settings and the pull requests in it')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const q = await ctx.api.call('getQueue', ctx.queue());
      ctx.out.result(q, () => {
        const summary = fields([
          ['branch', q.branch],
          ['state', q.state],
          ['mode', q.mode],
          ['concurrency', q.concurrency],
          ['required', q.requiredStatuses.join(', ') || undefined],
        ]);
        const rows: Cell[][] = q.enqueuedPullRequests.map((e, i) => [i + 1, `#${e.prNumber}`, e.state, e.priorityName, e.prTitle]);
        return `${summary}\n\n${table(['#', 'pr', 'state', 'priority', 'title'], rows)}`;
      });
    });

  queue
    .command('create')
    .description('create the queue of a branch')
    .addOption(new Option('--mode <mode>', 'single or parallel').choices(MODES))
    .option('--concurrency <n>', 'test runs at once', (v) => Number(v))
    .action(async (opts: { mode?: (typeof MODES)[number]; concurrency?: number }, command: Command) => {
      const ctx = contextOf(command);
      const ref = ctx.queue();
      const answer = await ctx.api.call('createQueue', { ...ref, ...opts });
      ctx.out.result(answer, () => `created the queue of ${ref.targetBranch}`);
    });

  queue
    .command('update')
    .description('change queue settings: --set key=value (any updateQueue field), repeatable')
    .option('--set <key=value>', 'a setting, e.g. concurrency=4 or requiredStatuses=["ci/test"]', setting, {})
    .action(async (opts: { set: Record<string, unknown> }, command: Command) => {
      const ctx = contextOf(command);
      if (Object.keys(opts.set).length === 0) throw new CliError(EXIT.usage, 'queue update needs at least one --set key=value');
      const answer = await ctx.api.call('updateQueue', {
        ...ctx.queue(),
        ...checkedByTheService<Omit<RequestOf<'updateQueue'>, 'repo' | 'targetBranch'>>(opts.set),
      });
      ctx.out.result(answer, () => `updated ${Object.keys(opts.set).join(', ')}`);
    });

  for (const [name, state, description] of [
    ['pause', 'paused', 'stop starting and merging (runs in progress go on)'],
    ['resume', 'running', 'run the queue again'],
    ['drain', 'draining', 'finish what is in the queue, admit nothing new'],
  ] as const) {
    queue
      .command(name)
      .description(description)
      .action(async (_opts: unknown, command: Command) => {
        const ctx = contextOf(command);
        const answer = await ctx.api.call('updateQueue', { ...ctx.queue(), state });
        ctx.out.result(answer, () => `the queue is ${answer.state}`);
      });
  }

  registerScheduleCommands(queue);
  registerDigestCommands(queue);

  queue
    .command('delete')
    .description('delete an empty queue')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const ref = ctx.queue();
      const answer = await ctx.api.call('deleteQueue', ref);
      ctx.out.result(answer, () => `deleted the queue of ${ref.targetBranch}`);
    });
}
