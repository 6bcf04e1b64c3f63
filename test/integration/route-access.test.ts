// Authorization fails closed (issue 22 §1), generated from the operations table so that an
// operation added to it is tried here too: every operation × every role (no token, read, write,
// admin) at its one path, with a query string, and at each other spelling of the path (trailing
// slash, letter case, double slash, percent-encoding, dot segments). The one path decides by the
// operation's role; every other spelling is answered 404 before authentication, by every role,
// and changes nothing.
import http from 'node:http';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO, makeGitRoot, removeGitRoot } from '../../scripts/lib/git-fixtures.js';
import { generateToken } from '../../shared/platform/accounts/token-repository.js';
import { ROLES, roleAllows, type Role } from '../../shared/platform/accounts/roles.js';
import { OPERATIONS, type Operation } from '../../api/openapi/operations.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/github-double.js';
import { PERSON_ONLY_OPERATIONS } from '../helpers/person-only-operations.js';

interface Answer {
  status: number;
  code: string | undefined;
}

/** One request with the path exactly as given: fetch and URL would normalise dot segments and case. */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body: string | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body !== null ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let code: string | undefined;
          try {
            code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode ?? 0, code });
        });
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** A concrete path of an operation: parameters filled with a well-formed value. */
const concrete = (op: Operation) => op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

/** Every other spelling of `path` that a lenient router, a proxy or a browser could map onto it. */
export function pathVariants(path: string): Record<string, string> {
  const segments = path.split('/');
  const last = segments.at(-1) ?? '';
  const parent = segments.slice(0, -1).join('/');
  const encodedFirstLetter = `${parent}/%${last.charCodeAt(0).toString(16).toUpperCase()}${last.slice(1)}`;
  const variants: Record<string, string> = {
    'trailing slash': `${path}/`,
    'upper case': path.toUpperCase(),
    'double slash': `${parent}//${last}`,
    'leading double slash': `/${path}`,
    'percent-encoded letter': encodedFirstLetter,
    'dot segment': `${parent}/./${last}`,
    'dot-dot segment': `${parent}/x/../${last}`,
    'encoded dot-dot segment': `${parent}/x/%2e%2e/${last}`,
  };
  // A path that has no letter to change keeps only its other variants.
  if (variants['upper case'] === path) delete variants['upper case'];
  const swapped = path.replace(/[a-z]/, (c) => c.toUpperCase());
  if (swapped !== path && swapped !== variants['upper case']) variants['one letter upper case'] = swapped;
  return variants;
}

describe('route access: every operation × every role × every spelling of its path', function () {
  this.timeout(120_000);
  let svc: TestService;
  let double: GitHubDouble;
  let ghRoot: string;
  let port: number;
  const tokens = {} as Record<Role, string>;
  type Caller = Role | 'anonymous';
  const CALLERS: readonly Caller[] = ['anonymous', ...ROLES];

  before(async () => {
    ghRoot = await makeGitRoot();
    double = await startGitHubDouble(ghRoot);
    svc = await startTestService({ env: { ...double.appEnv, GITHUB_WEBHOOK_SECRET: 'route-access-webhook-secret', AUTH_FAILURES_PER_MINUTE: '0' } });
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    port = Number(new URL(svc.url).port);
    for (const role of ROLES) {
      tokens[role] = generateToken();
      await svc.ctx.accounts.store.tokens.register(svc.orgId, tokens[role], `${role} caller`, { role });
    }
  });
  after(async () => {
    await svc.close();
    await double.close();
    await removeGitRoot(ghRoot);
  });

  const call = (op: Operation, caller: Caller, path: string) => {
    const headers: Record<string, string> = caller === 'anonymous' ? {} : { 'x-api-token': tokens[caller] };
    const hasBody = op.method !== 'get';
    if (hasBody) headers['content-type'] = 'application/json';
    return rawRequest(port, op.method.toUpperCase(), path, headers, hasBody ? '{}' : null);
  };

  /** What the canonical path must answer `caller`. */
  const expectDecision = (op: Operation, caller: Caller, answer: Answer, label: string) => {
    expect(answer.status, label).not.to.equal(500);
    expect(answer.code, label).not.to.be.oneOf(['route_not_found', 'method_not_allowed']);
    if (op.access === 'public') {
      expect(answer.code, label).not.to.equal('role_not_allowed');
      expect(answer.code, label).not.to.be.oneOf(['missing_token', 'invalid_token']);
    } else if (caller === 'anonymous') {
      expect(answer.status, label).to.equal(401);
      expect(answer.code, label).to.equal('missing_token');
    } else if (roleAllows(caller, op.access)) {
      // Past the role check: the empty body is refused (400) or the request is served — or, for a
      // person's own tokens, the use case asks for a person instead of a token.
      if (answer.status === 403) expect([answer.code, PERSON_ONLY_OPERATIONS.includes(op.operationId)], label).to.deep.equal(['person_required', true]);
      else expect(answer.status, label).not.to.equal(401);
    } else {
      expect(answer.status, label).to.equal(403);
      expect(answer.code, label).to.equal('role_not_allowed');
    }
  };

  it('covers every operation of the table', () => {
    expect(OPERATIONS.length).to.be.greaterThan(50);
    expect(OPERATIONS.filter((op) => op.access !== 'public').length).to.be.greaterThan(40);
  });

  for (const op of OPERATIONS) {
    const path = concrete(op);
    it(`${op.operationId} (${op.method.toUpperCase()} ${op.path}, ${op.access})`, async () => {
      for (const caller of CALLERS) {
        expectDecision(op, caller, await call(op, caller, path), `${op.operationId} as ${caller}`);
        const query = `${path}${path.includes('?') ? '&' : '?'}variant=query`;
        expectDecision(op, caller, await call(op, caller, query), `${op.operationId} with a query string as ${caller}`);
        for (const [variant, spelled] of Object.entries(pathVariants(path))) {
          const answer = await call(op, caller, spelled);
          const label = `${op.operationId} at ${spelled} (${variant}) as ${caller}: ${answer.status} ${answer.code}`;
          expect(answer.status, label).to.equal(404);
          expect(answer.code, label).to.equal('route_not_found');
        }
      }
    });
  }

  it('changed nothing through any of those requests', async () => {
    // Every mutating operation was called with an empty body or at another spelling: none may
    // have recorded a change, minted a token or created a queue or webhook endpoint.
    expect((await svc.ctx.accounts.store.audit.list(svc.orgId, { limit: 10 })).map((e) => e.action)).to.deep.equal([]);
    expect(await svc.ctx.accounts.store.tokens.countActive(svc.orgId)).to.equal(1 + ROLES.length);
    expect(await svc.ctx.mergeQueue.store.queues.listRefs(svc.orgId, DEFAULT_REPO)).to.deep.equal([]);
    expect(await svc.ctx.events.store.endpoints.list(svc.orgId)).to.deep.equal([]);
  });
});
