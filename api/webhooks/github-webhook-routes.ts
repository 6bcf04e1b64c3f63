// POST /webhooks/github: no API token — GitHub proves itself with X-Hub-Signature-256 over the
// raw body, so the body is read as bytes (never re-serialised JSON) before anything else.
import Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../../shared/errors.js';
import type { GitHubWebhooks } from '../../shared/providers/github/github-webhooks.js';

/** GitHub caps payloads at 25 MB. */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

async function rawBody(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new AppError('too_large', 'payload_too_large', 'webhook payloads are at most 25 MB');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createGitHubWebhookRouter(webhooks: GitHubWebhooks): Router {
  const router = new Router();
  router.post('/webhooks/github', async (ctx) => {
    const outcome = await webhooks.receive({
      event: ctx.get('x-github-event') || undefined,
      deliveryId: ctx.get('x-github-delivery') || undefined,
      signature: ctx.get('x-hub-signature-256') || undefined,
      body: await rawBody(ctx),
    });
    ctx.status = outcome === 'accepted' ? 202 : 200;
    ctx.body = { delivery: outcome };
  });
  return router;
}
