// tokens list|create|revoke, and the audit trail (admin tokens manage tokens).
import { Option, type Command } from 'commander';
import { contextOf } from '../command-context.js';
import { fields, table } from '../output.js';
import type { RequestOf } from '../../openapi/wire.js';
import { checkedByTheService } from '../api-client.js';

const ROLES = ['admin', 'write', 'read'] as const satisfies readonly RequestOf<'createToken'>['role'][];
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
