// Role enforcement from the operations table (api/openapi/operations.ts): an operation's `access`
// is checked by path before anything runs, its `elevated` rule once the JSON body is parsed.
// Runs after requireToken; routes the table does not list are left to the 404 handler.
import type { Middleware } from 'koa';
import { forbidden } from '../../shared/errors.js';
import { roleAllows, type Role } from '../../shared/accounts/roles.js';
import { OPERATIONS, type Operation } from '../openapi/operations.js';
import { authOf } from './auth.js';

const operationKey = (method: string, path: string) => `${method.toLowerCase()} ${path}`;

// Paths with parameters ({id}) are public today; token operations have fixed paths.
const BY_ROUTE: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((op) => [operationKey(op.method, op.path), op]));

const refuse = (held: Role, needed: Role, what: string) =>
  forbidden('role_not_allowed', `${what} needs a token with the ${needed} role; this token has the ${held} role`);

export function authorizeOperation(): Middleware {
  return async (ctx, next) => {
    const op = BY_ROUTE.get(operationKey(ctx.method, ctx.path));
    if (op && op.access !== 'public') {
      const { role } = authOf(ctx.state);
      if (!roleAllows(role, op.access)) throw refuse(role, op.access, op.operationId);
    }
    await next();
  };
}

/** After the body parser: the body-dependent rule of an operation (e.g. urgent submissions). */
export function authorizeBody(): Middleware {
  return async (ctx, next) => {
    const elevated = BY_ROUTE.get(operationKey(ctx.method, ctx.path))?.elevated;
    if (elevated && elevated.when(ctx.request.body)) {
      const { role } = authOf(ctx.state);
      if (!roleAllows(role, elevated.role)) throw refuse(role, elevated.role, elevated.what);
    }
    await next();
  };
}
