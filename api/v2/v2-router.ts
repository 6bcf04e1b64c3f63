// The v2 API's router. Every operation of the contract (contract.ts) is routed at its method and
// path, behind authentication, its rate limit and the contract's validation of its parameters and
// body; a handler receives them parsed. The set of handlers must name every operation of the
// contract and nothing else, or the process stops at start: an operation cannot lack a route.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { CONTRACT_OPERATIONS, describeErrors, type ContractOperation } from './contract.js';
import { V2Error, v2ErrorHandler, validationFailed } from './v2-errors.js';
import { v2Authenticate, v2CallerOf, type V2Caller } from './v2-auth.js';
import { budgetOf, V2RateLimits, type V2RateLimitSettings } from './v2-rate-limits.js';
import type { TokenRepository } from '../../shared/platform/accounts/token-repository.js';
import type { Logger } from '../../shared/platform/logging.js';
import { jsonBody } from '../routing/operation-router.js';

export interface V2Request {
  /** Path parameters, validated. */
  params: Record<string, string>;
  /** Query parameters the operation declares, typed by its schema and validated. */
  query: Record<string, string | number | boolean>;
  /** The JSON body, validated; undefined when the operation takes none. */
  body: unknown;
  caller: V2Caller;
}

/** What a handler answers: the body of the operation's success status (none for 204), and a media type when it is not JSON. */
export interface V2Answer {
  body?: unknown;
  contentType?: string;
}

export type V2Handler = (request: V2Request, ctx: Context) => Promise<V2Answer>;

export interface V2RouterDeps {
  tokens: TokenRepository;
  logger: Logger;
  failuresPerMinute: number;
  rateLimits: V2RateLimitSettings;
}

/** Lists that accept the contract's `sort`/`direction` only with their defaults (described, not declared, by the contract). */
const DEFAULT_ORDER: Readonly<Record<string, string>> = { sort: 'createdAt', direction: 'desc' };

/** A query string as the type its schema wants; anything else is left as text for the schema to refuse. */
function typedQueryValue(type: ContractOperation['parameters'][number]['type'], value: string): string | number | boolean {
  if (type === 'integer' && /^-?\d+$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function parseQuery(op: ContractOperation, raw: Record<string, string | string[] | undefined>): V2Request['query'] {
  const out: V2Request['query'] = {};
  const declared = new Map(op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const param = declared.get(name);
    if (!param) {
      if (declared.has('limit') && DEFAULT_ORDER[name] !== undefined && value === DEFAULT_ORDER[name]) continue;
      throw validationFailed(`unknown query parameter "${name}"`);
    }
    if (Array.isArray(value)) throw validationFailed(`query parameter "${name}" is given more than once`);
    const typed = typedQueryValue(param.type, value);
    if (!param.validate(typed)) throw validationFailed(describeErrors(param.validate.errors, `query parameter ${name}`));
    out[name] = typed;
  }
  for (const param of declared.values()) {
    if (param.required && out[param.name] === undefined) throw validationFailed(`query parameter "${param.name}" is required`);
  }
  return out;
}

function parseParams(op: ContractOperation, raw: Record<string, string>): Record<string, string> {
  for (const param of op.parameters.filter((p) => p.in === 'path')) {
    const value = raw[param.name];
    if (value === undefined || !param.validate(value))
      throw validationFailed(describeErrors(param.validate.errors, `path parameter ${param.name}`) || `path parameter ${param.name} is missing`);
  }
  return raw;
}

/** The one operation the token of a GitHub Actions login may call. */
const UPLOAD = 'impactedTargets.upload';

function route(op: ContractOperation, handler: V2Handler): Middleware {
  return async (ctx) => {
    const caller = v2CallerOf(ctx.state);
    if (caller.uploadsFor && op.operationId !== UPLOAD) {
      throw new V2Error(403, 'INSUFFICIENT_PERMISSIONS', 'the token of a GitHub Actions login only uploads impacted targets (PUT /v2/impacted-targets)');
    }
    const request: V2Request = {
      params: parseParams(op, ctx.params as Record<string, string>),
      query: parseQuery(op, ctx.query),
      body: undefined,
      caller,
    };
    if (op.body) {
      // The body parser reads a request without a body as {}, which the schemas refuse where something is required.
      const body = (ctx.request as { body?: unknown }).body ?? {};
      if (!op.body(body)) throw validationFailed(describeErrors(op.body.errors, 'body'));
      request.body = body;
    }
    const answer = await handler(request, ctx);
    ctx.status = op.successStatus;
    if (op.successStatus === 204) return;
    if (answer.contentType) ctx.type = answer.contentType;
    // An answer without content (202) keeps its status: Koa would turn a null body into 204.
    ctx.body = answer.body ?? '';
  };
}

/** `{id}` in the contract's paths is `:id` for the router. */
const routerPathOf = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * The middleware serving `/v2`. `publicRoutes` (the description) need no credential. Any other
 * path under /v2 is answered in the v2 envelope: 404 NOT_FOUND, or 405 for a known path asked
 * with another method.
 */
export function createV2Router(
  deps: V2RouterDeps,
  handlers: Readonly<Record<string, V2Handler>>,
  publicRoutes: Readonly<Record<string, Middleware>>,
): Middleware {
  const missing = CONTRACT_OPERATIONS.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  const unknown = Object.keys(handlers).filter((id) => !CONTRACT_OPERATIONS.some((op) => op.operationId === id));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(`the v2 router needs one handler per contract operation: missing ${missing.join(', ') || 'none'}; unknown ${unknown.join(', ') || 'none'}`);
  }
  const router = new Router({ strict: true, sensitive: true });
  for (const [path, middleware] of Object.entries(publicRoutes)) router.get(path, middleware);
  const authenticate = v2Authenticate(deps.tokens, deps.logger, deps.failuresPerMinute);
  const limits = new V2RateLimits(deps.rateLimits);
  // Fixed paths before parameterised ones (`/v2/merge-queues/metrics` before `/v2/merge-queues/{id}`).
  const ordered = [...CONTRACT_OPERATIONS].sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
  for (const op of ordered) {
    const stack: Middleware[] = [authenticate, limits.middleware(budgetOf(op.operationId, op.method))];
    if (op.body) stack.push(jsonBody);
    stack.push(route(op, handlers[op.operationId] as V2Handler));
    router.register(routerPathOf(op.path), [op.method], stack, { name: op.operationId });
  }
  // The router's middleware types carry its own context; they run here as plain Koa middleware.
  const routes = router.routes() as unknown as Middleware;
  const methods = router.allowedMethods({
    throw: true,
    methodNotAllowed: () => new V2Error(405, 'VALIDATION_FAILED', 'this endpoint does not accept that HTTP method'),
    notImplemented: () => new V2Error(405, 'VALIDATION_FAILED', 'this endpoint does not accept that HTTP method'),
  }) as unknown as Middleware;
  const errors = v2ErrorHandler(deps.logger);
  return async (ctx, next) => {
    if (ctx.path !== '/v2' && !ctx.path.startsWith('/v2/')) return next();
    await errors(ctx, async () => {
      await routes(ctx, async () => {
        await methods(ctx, async () => {
          throw new V2Error(404, 'NOT_FOUND', `no v2 endpoint ${ctx.method} ${ctx.path}`);
        });
      });
      if (ctx.status === 404 && ctx.body === undefined) throw new V2Error(404, 'NOT_FOUND', `no v2 endpoint ${ctx.method} ${ctx.path}`);
    });
  };
}
