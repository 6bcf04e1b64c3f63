// tokens list|create|revoke, and the audit trail (admin tokens manage tokens).
import type { Command } from 'commander';
import { contextOf } from '../command-context.js';
import { fields, table } from '../output.js';

interface Token {
  id: string;
  name: string;
  role: string;
  createdAt: string;
  revokedAt: string | null;
  token?: string;
}

interface AuditEvent {
  id: string;
  at: string;
  actor: { name: string };
  action: string;
  target: string;
  detail: Record<string, unknown>;
}

export function registerTokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('API tokens of the organisation');

  tokens
    .command('list')
    .description('the tokens (never their values)')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call<{ tokens: Token[] }>('listTokens', {});
      ctx.out.result(answer, () => table(['id', 'role', 'state', 'created', 'name'], answer.tokens.map((t) => [t.id, t.role, t.revokedAt ? 'revoked' : 'active', t.createdAt, t.name])));
    });

  tokens
    .command('create')
    .description('a new token; printed once')
    .requiredOption('--name <label>', 'what the token is for')
    .option('--role <role>', 'admin, write or read', 'read')
    .action(async (opts: { name: string; role: string }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api.call<Token>('createToken', opts);
      ctx.out.result(answer, () => fields([['id', answer.id], ['role', answer.role], ['token', `${answer.token ?? ''}  (shown only now)`]]));
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
      const answer = await ctx.api.call<{ events: AuditEvent[] }>('listAuditEvents', opts);
      ctx.out.result(answer, () => table(['at', 'actor', 'action', 'target', 'detail'], answer.events.map((e) => [e.at, e.actor.name, e.action, e.target, JSON.stringify(e.detail)])));
    });
}
