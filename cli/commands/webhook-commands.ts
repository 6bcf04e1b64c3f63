// webhooks list|create|update|delete|rotate|deliveries|redeliver (admin tokens).
import { Option, type Command } from 'commander';
import { contextOf } from '../command-context.js';
import { fields, table } from '../output.js';
import type { AnswerOf, RequestOf } from '../../openapi/wire.js';
import { checkedByTheService } from '../api-client.js';

type Endpoint = AnswerOf<'listWebhookEndpoints'>['endpoints'][number] & { secret?: string };
type EventName = NonNullable<RequestOf<'createWebhookEndpoint'>['events']>[number];
const KINDS = ['standard', 'slack'] as const satisfies readonly NonNullable<RequestOf<'createWebhookEndpoint'>['kind']>[];

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const endpointFields = (e: Endpoint) =>
  fields([
    ['id', e.id],
    ['url', e.url],
    ['kind', e.kind],
    ['events', e.events.join(', ') || 'all'],
    ['enabled', e.enabled],
    ['disabled because', e.disabledReason],
    ...(e.secret ? ([['secret', `${e.secret}  (shown only now)`]] as [string, string][]) : []),
  ]);

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('outbound webhook endpoints');

  webhooks
    .command('list')
    .description('the endpoints')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('listWebhookEndpoints', {});
      ctx.out.result(answer, () =>
        table(
          ['id', 'kind', 'enabled', 'events', 'url'],
          answer.endpoints.map((e) => [e.id, e.kind, e.enabled, e.events.join(',') || 'all', e.url]),
        ),
      );
    });

  webhooks
    .command('create <url>')
    .description('a new endpoint; prints its signing secret once')
    .addOption(new Option('--kind <kind>', 'standard (signed JSON) or slack (an incoming-webhook URL)').choices(KINDS))
    .option('--events <types>', 'comma-separated event types (default: all)', list)
    .option('--description <text>')
    .action(async (url: string, opts: { kind?: (typeof KINDS)[number]; events?: string[]; description?: string }, command: Command) => {
      const ctx = contextOf(command);
      const { events, ...rest } = opts;
      const answer = await ctx.api.call('createWebhookEndpoint', { url, ...rest, ...(events ? { events: checkedByTheService<EventName[]>(events) } : {}) });
      ctx.out.result(answer, () => endpointFields(answer));
    });

  webhooks
    .command('update <id>')
    .description('change an endpoint; --enable re-enables a disabled one')
    .option('--url <url>')
    .option('--events <types>', 'comma-separated event types (empty: all)', list)
    .option('--description <text>')
    .option('--enable', 'enable (and forget its failures)')
    .option('--disable', 'disable')
    .action(async (id: string, opts: { url?: string; events?: string[]; description?: string; enable?: boolean; disable?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const { enable, disable, events, ...rest } = opts;
      const enabled = enable ? { enabled: true } : disable ? { enabled: false } : {};
      const answer = await ctx.api.call('updateWebhookEndpoint', {
        id,
        ...rest,
        ...enabled,
        ...(events ? { events: checkedByTheService<EventName[]>(events) } : {}),
      });
      ctx.out.result(answer, () => endpointFields(answer));
    });

  webhooks
    .command('delete <id>')
    .description('delete an endpoint and its deliveries')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('deleteWebhookEndpoint', { id });
      ctx.out.result(answer, () => `deleted ${id}`);
    });

  webhooks
    .command('rotate <id>')
    .description('a new signing secret; the old one keeps signing for 24 hours')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('rotateWebhookSecret', { id });
      ctx.out.result(answer, () => endpointFields(answer));
    });

  webhooks
    .command('deliveries <id>')
    .description("an endpoint's recent deliveries")
    .option('--limit <n>', 'how many', (v) => Number(v))
    .action(async (id: string, opts: { limit?: number }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('listWebhookDeliveries', { endpointId: id, ...opts });
      ctx.out.result(answer, () =>
        table(
          ['id', 'type', 'status', 'attempts', 'code', 'ms', 'created', 'error'],
          answer.deliveries.map((d) => [d.id, d.type, d.status, d.attempts, d.responseCode, d.durationMs, d.createdAt, d.error]),
        ),
      );
    });

  webhooks
    .command('redeliver <deliveryId>')
    .description('send one delivery again (same webhook-id)')
    .action(async (deliveryId: string, _opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('redeliverWebhook', { deliveryId });
      ctx.out.result(answer, () => `redelivering ${answer.id}`);
    });
}
