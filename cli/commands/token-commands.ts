// tokens list|create|revoke, api-keys list|create|revoke (the v2 API's keys), and the audit trail
// (admin tokens manage tokens and keys).
import { Option, type Command } from 'commander';
import { contextOf } from '../command-context.js';
import { fields, table } from '../output.js';
import type { RequestOf } from '../../openapi/wire.js';
import { checkedByTheService } from '../api-client.js';

const ROLES = ['admin', 'write', 'read'] as const satisfies readonly RequestOf<'createToken'>['role'][];
type Permission = RequestOf<'createApiKey'>['permissions'][number];
type AuditAction = NonNullable<RequestOf<'listAuditEvents'>['action']>;

export function registerTokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('API tokens of the organisation');

  tokens
    .command('list')
    .description('the tokens (never their values)')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('listTokens', {});
      ctx.out.result(answer, () =>
        table(
          ['id', 'role', 'state', 'created', 'name'],
          answer.tokens.map((t) => [t.id, t.role, t.revokedAt ? 'revoked' : 'active', t.createdAt, t.name]),
        ),
      );
    });

  tokens
    .command('create')
    .description('a new token; printed once')
    .requiredOption('--name <label>', 'what the token is for')
    .addOption(new Option('--role <role>', 'what it may do').choices(ROLES).default('read'))
    .action(async (opts: { name: string; role: (typeof ROLES)[number] }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('createToken', opts);
      ctx.out.result(answer, () =>
        fields([
          ['id', answer.id],
          ['role', answer.role],
          ['token', `${answer.token ?? ''}  (shown only now)`],
        ]),
      );
    });

  tokens
    .command('revoke <id>')
    .description('revoke a token')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('revokeToken', { id });
      ctx.out.result(answer, () => `revoked ${id}`);
    });

  const keys = program.command('api-keys').description("the v2 API's keys of the organisation, each with merge-queue permissions");

  keys
    .command('list')
    .description('the keys (never their values)')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('listApiKeys', {});
      ctx.out.result(answer, () =>
        table(
          ['id', 'state', 'created', 'name', 'permissions'],
          answer.keys.map((k) => [k.id, k.revokedAt ? 'revoked' : 'active', k.createdAt, k.name, k.permissions.join(', ') || 'none (reads only)']),
        ),
      );
    });

  keys
    .command('create')
    .description('a new key; printed once')
    .requiredOption('--name <label>', 'what the key is for (unique among active keys)')
    .option(
      '--permission <permission...>',
      'merge_and_cancel, set_priority, skip_batching, direct_to_queue, update_settings (repeat or list; none: the key only reads)',
    )
    .action(async (opts: { name: string; permission?: string[] }, command: Command) => {
      const ctx = contextOf(command);
      const permissions = (opts.permission ?? []).flatMap((p) => p.split(',')).filter(Boolean);
      const answer = await ctx.api.call('createApiKey', { name: opts.name, permissions: checkedByTheService<Permission[]>(permissions) });
      ctx.out.result(answer, () =>
        fields([
          ['id', answer.id],
          ['permissions', answer.permissions.join(', ') || 'none (reads only)'],
          ['key', `${answer.key}  (shown only now; send it as Authorization: Bearer to /v2)`],
        ]),
      );
    });

  keys
    .command('revoke <id>')
    .description('revoke a key')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call('revokeApiKey', { id });
      ctx.out.result(answer, () => `revoked ${id}`);
    });

  program
    .command('audit')
    .description('who changed queues, tokens, webhooks and quarantine overrides, newest first')
    .option('--limit <n>', 'how many', (v) => Number(v))
    .option('--action <action>', 'only this action, e.g. queue.updated')
    .action(async (opts: { limit?: number; action?: string }, command: Command) => {
      const ctx = contextOf(command);
      const { action, ...rest } = opts;
      const answer = await ctx.api.call('listAuditEvents', { ...rest, ...(action ? { action: checkedByTheService<AuditAction>(action) } : {}) });
      ctx.out.result(answer, () =>
        table(
          ['at', 'actor', 'action', 'target', 'detail'],
          answer.events.map((e) => [e.at, e.actor.name, e.action, e.target, JSON.stringify(e.detail)]),
        ),
      );
    });
}
