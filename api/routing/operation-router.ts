// The one way a route is registered: by an operation of the table (api/openapi/operations.ts), at
// that operation's one path, with its access rule in front of its handler. The router matches
// exactly (letter case and trailing slash count), so any other spelling of a path matches nothing
// and answers 404 before authentication could run; a path that names no operation cannot be
// registered at all, so an operation without a rule does not exist.
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import createHttpError from 'http-errors';
import type { Middleware } from 'koa';
import { requireRole } from '../../shared/platform/accounts/policy.js';
import { OPERATIONS, type Operation } from '../openapi/operations.js';
import { actorOf } from '../middleware/auth.js';

/** Registers handlers of the operations of the table; nothing else can be routed. */
export interface OperationRoutes {
  handle(operationId: string, handler: Middleware): void;
}

const BY_ID: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((op) => [op.operationId, op]));

/** `{id}` in the table's paths is `:id` for the router. */
export const routerPathOf = (op: Pick<Operation, 'path'>) => op.path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/** The operation of an id; an id the table does not hold stops the process at start. */
export function operationOf(operationId: string): Operation {
  const op = BY_ID.get(operationId);
  if (!op) throw new Error(`no operation ${operationId} in api/openapi/operations.ts: a route needs its row (path, access, schemas)`);
  return op;
}

// Bodies above 20 MiB are refused with 413 (spec §8). Parsed only once the caller is known, so an
// unauthenticated request never costs a parse. The v2 router parses its bodies with it too.
export const jsonBody = bodyParser({
  enableTypes: ['json'],
  jsonLimit: '20mb',
  strict: true,
  onerror: (err) => {
    throw err;
  },
});

/** The role check of an operation, from the operation the router matched (never from the path). */
function authorize(op: Operation & { access: Exclude<Operation['access'], 'public'> }): Middleware {
  return async (ctx, next) => {
    requireRole(actorOf(ctx.state), op.access, op.operationId);
    await next();
  };
}

// A method the router does not implement at all is answered like any other wrong method.
const ROUTER_ERRORS = { throw: true, notImplemented: () => new createHttpError.MethodNotAllowed() };

export interface OperationRouter extends OperationRoutes {
  /** The middleware to mount: the routes, then 405 for a known path asked with another method. */
  middleware(): [ReturnType<Router['routes']>, ReturnType<Router['allowedMethods']>];
}

/**
 * `authenticate` identifies the caller (x-api-token, or a dashboard session) and is put in front
 * of every operation that is not public; once the body is parsed, `scope` gives a person whose
 * role depends on the repository their role for the one the request names, and the operation's
 * role is checked right after.
 */
export function createOperationRouter(authenticate: Middleware, scope: (operationId: string) => Middleware): OperationRouter {
  const router = new Router({ strict: true, sensitive: true });
  const registered = new Set<string>();
  return {
    handle(operationId, handler) {
      const op = operationOf(operationId);
      if (registered.has(operationId)) throw new Error(`operation ${operationId} is registered twice`);
      registered.add(operationId);
      const stack: Middleware[] = [];
      if (op.access !== 'public') stack.push(authenticate);
      if (op.request?.kind === 'json') stack.push(jsonBody);
      if (op.access !== 'public') stack.push(scope(op.operationId), authorize({ ...op, access: op.access }));
      router.register(routerPathOf(op), [op.method], [...stack, handler], { name: op.operationId });
    },
    middleware: () => [router.routes(), router.allowedMethods(ROUTER_ERRORS)],
  };
}
