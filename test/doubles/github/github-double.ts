// A GitHub double for tests: a node:http server on 127.0.0.1 that serves the REST operations
// the provider uses (test/doubles/github/operations.ts) and git over HTTP, with its state in
// real bare repositories laid out as the local provider's (`<root>/<host>/<owner>/<name>.git`,
// pull request N at refs/pull/N/head described by pulls/N.json, refs/pull/N/merged once merged),
// so tests build repositories and pull requests with scripts/lib/git-fixtures.ts.
//
// It is honest rather than agreeable: every request is checked against GitHub's OpenAPI
// description and so is every response (built from GitHub's documented examples), an unexpected
// route is a problem, App JWTs are verified with the App's public key and installation tokens
// are scoped to their owner. Tests call assertClean() to fail on any problem seen.
import http from 'node:http';
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sign as signPayload } from '@octokit/webhooks-methods';
import { LocalGitProvider } from '../../../shared/providers/local/local-git-provider.js';
import { GitRepository } from '../../../shared/providers/local/git-repository.js';
import { runGit } from '../../../shared/providers/local/git-runner.js';
import { conventionalRepositoryPath } from '../../../shared/providers/local/repo-path.js';
import { pullMetadataPath, readPullMetadata } from '../../../shared/providers/local/pull-metadata.js';
import type { MergeMethod } from '../../../shared/merge-queue/domain/model.js';
import type { PullRequestInfo } from '../../../shared/merge-queue/services/provider.js';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';
import { serveGitHttp } from './git-http-backend.js';
import { OAuthWebFlow } from './oauth-web-flow.js';
import { examplePayload, payloadFor } from './webhook-payloads.js';
import { documentedExample, matchOperation, requestProblems, responseProblems, type MatchedOperation } from './openapi-validator.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface DoubleFaults {
  /** GET pulls/N answers `mergeable: null` (GitHub still computing). */
  mergeableNull: boolean;
  /** The next N requests matching (method path-prefix) answer a secondary-rate-limit 403 with retry-after. */
  secondaryLimit: { method: string; pathIncludes: string; remaining: number; retryAfterSeconds: number } | null;
  /** The next merge answers 500: `after` = the merge happened first (a lost answer), else nothing was done. */
  mergeServerError: { after: boolean; remaining: number } | null;
  /** Webhook events that are lost on the way (GitHub does not redeliver them). */
  lostEvents: Set<string>;
  /** Merges are refused as branch protection or a ruleset would refuse them. */
  mergeRefusal: { status: 403 | 405; message: string } | null;
  /** The next N requests matching (method, path fragment) are carried out, but their answer is lost: a 502. */
  lostAnswer: { method: string; pathIncludes: string; remaining: number } | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  body: Json | undefined;
}

export interface StatusRecord {
  sha: string;
  context: string;
  state: string;
  target_url: string | null;
}

export interface CheckRunRecord {
  /** The check run's id: one per POST, as on GitHub (a re-run is a new check run). */
  id: number;
  /** The suite: one per head commit (the double plays one App reporting them). */
  suiteId: number;
  head_sha: string;
  name: string;
  status: string;
  conclusion: string | null;
  details_url: string | null;
}

/** A pull request opened through the API (the queue's draft pull requests for test branches). */
export interface CreatedPullRecord {
  repo: string;
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed';
}

export interface CommentRecord {
  id: number;
  repo: string;
  issue: number;
  body: string;
  edits: number;
  /** Who wrote it: a person (tests' comments), the App (`…[bot]`) or the token's user. */
  author: string;
  reactions: string[];
  /** When it was written (GitHub's `created_at`). */
  createdAt: string;
}

/** A person's role on a repository, as GitHub names them in `role_name`. */
export type DoublePermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** The legacy base role GitHub answers in `permission` beside `role_name`. */
const LEGACY_PERMISSION: Readonly<Record<DoublePermission, string>> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

export interface GitHubDoubleOptions {
  /** The repository host the double plays (default github.com). */
  host?: string;
  /** Plain tokens the double accepts (the token-only setup). */
  tokens?: string[];
}

interface IssuedToken {
  owner: string;
  installationId: number;
  expiresAt: number;
}

const TOKEN_TTL_MS = 3600_000;
/**
 * Pull requests opened through the API are numbered after this (and after every existing one):
 * fixtures number theirs from 1, so a test that adds a pull request later never collides.
 */
const API_PULL_NUMBERS_FROM = 1000;
/** The author of comments made with the App's installation tokens, and with a plain token. */
const APP_BOT = 'openmq-merge-queue[bot]';
const TOKEN_USER = 'queue-service-user';
const MERGE_METHODS: Record<string, MergeMethod> = { merge: 'merge_commit', squash: 'squash', rebase: 'rebase' };

export class GitHubDouble {
  readonly host: string;
  readonly appId = '4242';
  readonly privateKey: string;
  private readonly publicKey: KeyObject;
  readonly problems: string[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly statuses: StatusRecord[] = [];
  readonly checkRuns: CheckRunRecord[] = [];
  readonly comments: CommentRecord[] = [];
  readonly createdPulls: CreatedPullRecord[] = [];
  /** Base changes made through PATCH /pulls/N, in order. */
  readonly retargets: { repo: string; number: number; from: string; to: string }[] = [];
  readonly faults: DoubleFaults = {
    mergeableNull: false,
    secondaryLimit: null,
    mergeServerError: null,
    lostEvents: new Set(),
    mergeRefusal: null,
    lostAnswer: null,
  };
  /** Required status checks per `owner/name/branch`: from rulesets and from classic protection. */
  readonly protection = new Map<string, { rulesets: string[]; classic: string[] | null }>();
  /** Permissions of users on repositories: `owner/name:login` (lower case) → role; anyone else reads (a public repository). */
  readonly permissions = new Map<string, DoublePermission>();
  /** GitHub's web sign-in (the App's user authorization): its client and its users. */
  readonly oauth = new OAuthWebFlow(this.problems);
  /** When each pull request (`owner/name#number`) last changed in a way the double models (its labels). */
  private readonly pullUpdatedAt = new Map<string, string>();
  /** Labels on pull requests: `owner/name#N` → their names. */
  readonly labels = new Map<string, string[]>();
  /** Pull requests opened from a fork: `owner/name#N` → the fork's owner. */
  readonly forks = new Map<string, string>();
  /** Events whose delivery could not reach the service. */
  readonly failedDeliveries: string[] = [];
  /** Webhook deliveries are posted here, signed with the secret, when set. */
  webhook: { url: string; secret: string } | null = null;
  private readonly plainTokens: Set<string>;
  private readonly issued = new Map<string, IssuedToken>();
  private readonly installations = new Map<string, number>();
  private readonly git: LocalGitProvider;
  private server: http.Server | null = null;
  private readonly inFlight = new Set<Promise<number | null>>();
  private baseUrl = '';

  constructor(
    /** The directory holding `<host>/<owner>/<name>.git`. */
    readonly root: string,
    opts: GitHubDoubleOptions = {},
  ) {
    this.host = opts.host ?? 'github.com';
    this.plainTokens = new Set(opts.tokens ?? []);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    this.publicKey = publicKey;
    this.git = new LocalGitProvider({ root });
  }

  get apiUrl(): string {
    return `${this.baseUrl}/api/v3`;
  }

  /** Where people sign in (GITHUB_WEB_URL), as on a GitHub Enterprise Server. */
  get webUrl(): string {
    return this.baseUrl;
  }

  get gitUrl(): string {
    return `${this.baseUrl}/git`;
  }

  /** The service's configuration to reach this double (with a token: add GITHUB_TOKEN). */
  get endpointEnv(): Record<string, string> {
    return { GITHUB_API_URL: this.apiUrl, GITHUB_GIT_URL: this.gitUrl, GITHUB_HOST: this.host };
  }

  /** The service's configuration for this double's GitHub App. */
  get appEnv(): Record<string, string> {
    return { ...this.endpointEnv, GITHUB_APP_ID: this.appId, GITHUB_APP_PRIVATE_KEY: this.privateKey };
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.problems.push(`double failed on ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Fails the test when the provider sent anything GitHub's description does not allow (or the double answered so). */
  assertClean(): void {
    if (this.problems.length > 0) throw new Error(`GitHub double saw problems:\n- ${this.problems.join('\n- ')}`);
  }

  /** Requests that match a method and a path fragment, e.g. ('PUT', '/merge'). */
  requestsTo(method: string, pathIncludes: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.includes(pathIncludes));
  }

  private repoDir(owner: string, name: string): string {
    return conventionalRepositoryPath(this.root, { host: this.host, owner, name });
  }

  private repoRef(owner: string, name: string): RepoRef {
    return { host: this.host, owner, name };
  }

  // ---- authentication -------------------------------------------------------------------

  private installationId(owner: string): number {
    const key = owner.toLowerCase();
    let id = this.installations.get(key);
    if (id === undefined) {
      id = 1000 + this.installations.size;
      this.installations.set(key, id);
    }
    return id;
  }

  /** Verifies an App JWT (RS256, signed by the App's key, iss = App id, lifetime ≤ 10 minutes). */
  private verifyJwt(token: string): string | null {
    const [h, p, s] = token.split('.');
    if (!h || !p || !s) return 'not a JWT';
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { iat?: number; exp?: number; iss?: string | number };
    if (header.alg !== 'RS256') return `alg ${header.alg}`;
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), this.publicKey, Buffer.from(s, 'base64url'))) return 'bad signature';
    const now = Math.floor(Date.now() / 1000);
    if (String(payload.iss) !== this.appId) return `iss ${payload.iss}`;
    if (!payload.iat || !payload.exp || payload.exp <= now || payload.iat > now + 60 || payload.exp - payload.iat > 660) return 'expired or too long';
    return null;
  }

  private bearer(req: http.IncomingMessage): string | null {
    const auth = req.headers.authorization ?? '';
    const m = /^(?:token|bearer)\s+(\S+)$/i.exec(auth);
    return m?.[1] ?? null;
  }

  /** The owners a token may act on ('*' for a plain token), or null when it is not valid. */
  private tokenScope(token: string | null): string | null {
    if (!token) return null;
    if (this.plainTokens.has(token)) return '*';
    const issued = this.issued.get(token);
    if (!issued || issued.expiresAt < Date.now()) return null;
    return issued.owner;
  }

  // ---- dispatch -------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (url.pathname.startsWith('/git/')) return this.handleGit(req, res, url);
    const readBody = async () => {
      const parts: Buffer[] = [];
      for await (const c of req) parts.push(c as Buffer);
      return Buffer.concat(parts).toString('utf8');
    };
    if (await this.oauth.handle(req, res, url, readBody)) return;
    if (!url.pathname.startsWith('/api/v3/')) {
      this.problems.push(`unexpected request ${req.method} ${url.pathname}`);
      res.writeHead(404).end();
      return;
    }
    const pathname = url.pathname.slice('/api/v3'.length);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text.length > 0 ? (JSON.parse(text) as Json) : undefined;
    const op = matchOperation(req.method ?? 'GET', pathname);
    if (!op) {
      this.problems.push(`unexpected route ${req.method} ${pathname}`);
      return this.send(res, null, 404, { message: 'Not Found' }, req.method ?? '', pathname, body);
    }
    for (const p of requestProblems(op, url.searchParams, body)) this.problems.push(`${req.method} ${pathname}: ${p}`);
    const limit = this.faults.secondaryLimit;
    if (limit && limit.remaining > 0 && limit.method === req.method && pathname.includes(limit.pathIncludes)) {
      limit.remaining--;
      res.setHeader('retry-after', String(limit.retryAfterSeconds));
      // Deliberate: the documented 403 answer, with GitHub's secondary-limit message.
      return this.send(
        res,
        op,
        403,
        {
          message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        },
        req.method ?? '',
        pathname,
        body,
      );
    }
    const [status, answer] = await this.route(op, req, url.searchParams, body);
    const lost = this.faults.lostAnswer;
    if (lost && lost.remaining > 0 && lost.method === req.method && pathname.includes(lost.pathIncludes) && status < 300) {
      lost.remaining--;
      return this.send(res, op, 502, { message: 'Server Error' }, req.method ?? '', pathname, body);
    }
    return this.send(res, op, status, answer, req.method ?? '', pathname, body);
  }

  private send(
    res: http.ServerResponse,
    op: MatchedOperation | null,
    status: number,
    answer: Json | undefined,
    method: string,
    pathname: string,
    body: Json | undefined,
  ): void {
    this.requests.push({ method, path: pathname, status, body });
    // A 500 or 502 is a fault the test switched on; it is not part of the description.
    if (op && status !== 500 && status !== 502) for (const p of responseProblems(op, status, answer)) this.problems.push(`${method} ${pathname} → ${p}`);
    if (answer === undefined) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer));
  }

  private async handleGit(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const m = /^\/git\/([^/]+)\/([^/]+\.git)(\/.*)$/.exec(url.pathname);
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const [user, password] = basic?.[1] ? Buffer.from(basic[1], 'base64').toString('utf8').split(':') : [];
    if (!m || user !== 'x-access-token' || this.tokenScope(password ?? null) === null) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"' }).end();
      return;
    }
    const [, owner = '', repoGit = '', rest = ''] = m;
    const scope = this.tokenScope(password ?? null);
    if (scope !== '*' && scope?.toLowerCase() !== owner.toLowerCase()) {
      res.writeHead(403).end();
      return;
    }
    const name = repoGit.replace(/\.git$/, '');
    const receiving = rest === '/git-receive-pack';
    const before = receiving ? await this.branchHeads(owner, name) : null;
    await serveGitHttp({
      req,
      res,
      projectRoot: path.join(this.root, this.host),
      pathInfo: `/${owner}/${repoGit}${rest}`,
      query: url.search.slice(1),
      user: user,
    });
    if (before) await this.afterPush(owner, name, before);
  }

  private async branchHeads(owner: string, name: string): Promise<Map<string, string>> {
    const git = new GitRepository(this.repoDir(owner, name), { name: 'GitHub', email: 'noreply@github.com' });
    return new Map((await git.refs(['refs/heads/'])).map((r) => [r.ref, r.sha]));
  }

  /** What GitHub does after a push: pull requests whose head became reachable from their base are merged; webhooks. */
  private async afterPush(owner: string, name: string, before: Map<string, string>): Promise<void> {
    const after = await this.branchHeads(owner, name);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((ref) => before.get(ref) !== after.get(ref));
    for (const ref of changed) {
      const newSha = after.get(ref) ?? null;
      if (newSha) await this.markMergedBy(owner, name, ref.slice('refs/heads/'.length), newSha);
      await this.deliver('push', this.pushPayload(owner, name, ref, before.get(ref) ?? null, newSha));
    }
  }

  private async markMergedBy(owner: string, name: string, branch: string, head: string): Promise<void> {
    const repo = this.repoRef(owner, name);
    const git = new GitRepository(this.repoDir(owner, name), { name: 'GitHub', email: 'noreply@github.com' });
    for (const pr of await this.git.listOpenPullRequests(repo)) {
      if ((pr.baseBranch ?? 'main') !== branch) continue;
      if (!(await git.isAncestor(pr.headSha, head))) continue;
      await git.updateRefs([{ ref: `refs/pull/${pr.number}/merged`, newSha: head }], 'double: merged by push');
      await this.deliver('pull_request', await this.pullPayload(owner, name, pr.number, 'closed'));
    }
  }

  // ---- webhooks -------------------------------------------------------------------------

  /** Posts a delivery as GitHub does (X-GitHub-Event, X-GitHub-Delivery, X-Hub-Signature-256); resolves to the status. */
  async deliver(event: string, payload: JsonObject, opts: { secret?: string; deliveryId?: string } = {}): Promise<number | null> {
    if (!this.webhook || this.faults.lostEvents.has(event)) return null;
    const delivery = this.post(this.webhook, event, payload, opts);
    this.inFlight.add(delivery);
    try {
      return await delivery;
    } finally {
      this.inFlight.delete(delivery);
    }
  }

  /** Resolves once the deliveries on their way have been answered (stop new ones first by clearing `webhook`). */
  async deliveriesSettled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async post(
    webhook: { url: string; secret: string },
    event: string,
    payload: JsonObject,
    opts: { secret?: string; deliveryId?: string },
  ): Promise<number | null> {
    const body = JSON.stringify(payload);
    const signature = await signPayload(opts.secret ?? webhook.secret, body);
    let res: Response;
    try {
      res = await fetch(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/double',
          'x-github-event': event,
          'x-github-delivery': opts.deliveryId ?? randomBytes(16).toString('hex'),
          'x-hub-signature-256': signature,
        },
        body,
      });
    } catch {
      // GitHub records a failed delivery and does not retry it.
      this.failedDeliveries.push(event);
      return null;
    }
    await res.arrayBuffer();
    return res.status;
  }

  private event(event: string, action: string | undefined, owner: string, name: string, fields: JsonObject): JsonObject {
    return payloadFor(event, action, { owner, name, installationId: this.installationId(owner) }, fields) as JsonObject;
  }

  private pushPayload(owner: string, name: string, ref: string, before: string | null, after: string | null): JsonObject {
    const zero = '0'.repeat(40);
    return this.event('push', undefined, owner, name, {
      ref,
      before: before ?? zero,
      after: after ?? zero,
      created: before === null,
      deleted: after === null,
      forced: false,
      commits: [],
      head_commit: null,
    });
  }

  /** A pull_request event payload for the pull request as it is now. */
  async pullPayload(owner: string, name: string, number: number, action: string, extra: JsonObject = {}): Promise<JsonObject> {
    const pull = await this.pullObject(owner, name, number);
    return this.event('pull_request', action === 'synchronize' || action === 'edited' ? 'opened' : action, owner, name, {
      action,
      number,
      pull_request: pull,
      ...extra,
    });
  }

  // ---- REST -----------------------------------------------------------------------------

  private async route(op: MatchedOperation, req: http.IncomingMessage, query: URLSearchParams, body: Json | undefined): Promise<[number, Json | undefined]> {
    const token = this.bearer(req);
    if (op.path.startsWith('/app/') || op.path === '/repos/{owner}/{repo}/installation') {
      const problem = token ? this.verifyJwt(token) : 'no token';
      if (problem) return [401, { message: `A JSON web token could not be decoded (${problem})`, documentation_url: 'https://docs.github.com/rest' }];
      return op.path.startsWith('/app/') ? this.createToken(op) : this.getInstallation(op);
    }
    if (op.path === '/user') {
      const user = this.oauth.userOfToken(token);
      if (!user) return [401, { message: 'Requires authentication', documentation_url: 'https://docs.github.com/rest/users/users#get-the-authenticated-user' }];
      return [200, { ...documentedExample<JsonObject>(op, 200), login: user.login, id: user.id, name: user.name, email: user.email }];
    }
    const owner = op.params.owner ?? '';
    const name = op.params.repo ?? '';
    const scope = this.tokenScope(token);
    if (scope === null || (scope !== '*' && scope.toLowerCase() !== owner.toLowerCase())) {
      // GitHub hides repositories a token cannot see.
      return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    }
    if (!(await this.git.repositoryExists(this.repoRef(owner, name))))
      return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    switch (`${op.method} ${op.path}`) {
      case 'get /repos/{owner}/{repo}':
        return [200, this.repoObject(owner, name)];
      case 'get /repos/{owner}/{repo}/pulls':
        return [200, await this.listPulls(owner, name, query)];
      case 'post /repos/{owner}/{repo}/pulls':
        return this.createPull(owner, name, body as JsonObject);
      case 'patch /repos/{owner}/{repo}/pulls/{pull_number}':
        return this.updatePull(owner, name, Number(op.params.pull_number), body as JsonObject);
      case 'get /repos/{owner}/{repo}/pulls/{pull_number}': {
        const pull = await this.git.getPullRequest(this.repoRef(owner, name), Number(op.params.pull_number));
        return pull
          ? [200, await this.pullObject(owner, name, pull.number)]
          : [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
      }
      case 'put /repos/{owner}/{repo}/pulls/{pull_number}/merge':
        return this.merge(owner, name, Number(op.params.pull_number), (body ?? {}) as JsonObject);
      case 'get /repos/{owner}/{repo}/git/ref/{ref}':
        return this.getRef(op, owner, name);
      case 'get /repos/{owner}/{repo}/contents/{path}':
        return this.getContent(op, owner, name, query.get('ref') ?? 'main');
      case 'get /repos/{owner}/{repo}/rules/branches/{branch}':
        return [200, this.rules(owner, name, op.params.branch ?? '')];
      case 'get /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks':
        return this.classicProtection(op, owner, name);
      case 'post /repos/{owner}/{repo}/statuses/{sha}':
        return this.createStatus(op, owner, name, body as JsonObject);
      case 'post /repos/{owner}/{repo}/check-runs':
        return this.createCheckRun(owner, name, body as JsonObject);
      case 'get /repos/{owner}/{repo}/commits/{ref}/status':
        return [200, this.combinedStatus(op)];
      case 'get /repos/{owner}/{repo}/commits/{ref}/check-runs':
        return [200, this.listCheckRuns(op)];
      case 'post /repos/{owner}/{repo}/issues/{issue_number}/comments':
        return this.createComment(
          op,
          owner,
          name,
          String((body as JsonObject).body),
          scope === '*' ? { login: TOKEN_USER, type: 'User' } : { login: APP_BOT, type: 'Bot' },
        );
      case 'patch /repos/{owner}/{repo}/issues/comments/{comment_id}':
        return this.editComment(op, owner, name, String((body as JsonObject).body));
      case 'post /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions':
        return this.react(op, owner, name, String((body as JsonObject).content));
      case 'get /repos/{owner}/{repo}/collaborators/{username}/permission':
        return [200, this.collaboratorPermission(op, owner, name)];
      default:
        this.problems.push(`no handler for ${op.method} ${op.path}`);
        return [404, { message: 'Not Found' }];
    }
  }

  private createToken(op: MatchedOperation): [number, Json] {
    const id = Number(op.params.installation_id);
    const owner = [...this.installations.entries()].find(([, v]) => v === id)?.[0];
    if (!owner) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    const expiresAt = Date.now() + TOKEN_TTL_MS;
    this.issued.set(token, { owner, installationId: id, expiresAt });
    const example = documentedExample<JsonObject>(op, 201);
    delete example.repositories;
    return [
      201,
      {
        ...example,
        token,
        expires_at: new Date(expiresAt).toISOString(),
        repository_selection: 'all',
        permissions: { contents: 'write', pull_requests: 'write', statuses: 'write', checks: 'write', metadata: 'read' },
      },
    ];
  }

  private async getInstallation(op: MatchedOperation): Promise<[number, Json]> {
    const owner = op.params.owner ?? '';
    if (!(await this.git.repositoryExists(this.repoRef(owner, op.params.repo ?? ''))))
      return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    const example = documentedExample<JsonObject>(op, 200);
    return [200, { ...example, id: this.installationId(owner), app_id: Number(this.appId), account: { ...(example.account as JsonObject), login: owner } }];
  }

  /** The pull request's `head.repo` / `base.repo`: GitHub's example renamed to the repository it is. */
  private repoOf(example: JsonObject, owner: string, name: string): JsonObject {
    return { ...example, name, full_name: `${owner}/${name}`, owner: { ...(example.owner as JsonObject), login: owner } };
  }

  private repoObject(owner: string, name: string): Json {
    const example = documentedExample<JsonObject>({ method: 'get', path: '/repos/{owner}/{repo}' }, 200);
    // GitHub's example omits `language`, which its own schema requires; a fork's source/parent do not apply.
    delete example.source;
    delete example.parent;
    return {
      ...example,
      name,
      full_name: `${owner}/${name}`,
      owner: { ...(example.owner as JsonObject), login: owner },
      default_branch: 'main',
      language: null,
    };
  }

  private async pullObject(owner: string, name: string, number: number): Promise<JsonObject> {
    const repo = this.repoRef(owner, name);
    const pr = (await this.git.getPullRequest(repo, number)) as PullRequestInfo;
    const example = documentedExample<JsonObject>({ method: 'get', path: '/repos/{owner}/{repo}/pulls/{pull_number}' }, 200);
    const base = pr.baseBranch ?? 'main';
    const baseSha = (await this.git.branchHead(repo, base)) ?? pr.headSha;
    const mergedRef = await new GitRepository(this.repoDir(owner, name), { name: 'GitHub', email: 'noreply@github.com' }).refTarget(
      `refs/pull/${number}/merged`,
    );
    const mergeable =
      pr.state === 'open' && !this.faults.mergeableNull ? (await this.git.mergeability(repo, { baseSha, headSha: pr.headSha })) === 'mergeable' : null;
    const exHead = example.head as JsonObject;
    const exBase = example.base as JsonObject;
    // A fork's head lives in its owner's copy of the repository (GitHub serves it as refs/pull/N/head here).
    const headOwner = this.forks.get(`${owner}/${name}#${number}`) ?? owner;
    const now = new Date().toISOString();
    const [labelTemplate] = example.labels as JsonObject[];
    return {
      ...example,
      labels: (this.labels.get(`${owner}/${name}#${number}`) ?? []).map((label, i) => ({
        ...labelTemplate,
        id: i + 1,
        name: label,
        url: `${this.apiUrl}/repos/${owner}/${name}/labels/${encodeURIComponent(label)}`,
        default: false,
      })),
      // The example's teams lack fields the schema requires; the double's pull requests request no reviews.
      requested_teams: [],
      requested_reviewers: [],
      number,
      title: pr.title,
      user: { ...(example.user as JsonObject), login: pr.author },
      state: pr.state,
      draft: pr.draft,
      merged: mergedRef !== null,
      merged_at: mergedRef !== null ? now : null,
      updated_at: this.pullUpdatedAt.get(`${owner}/${name}#${number}`) ?? now,
      closed_at: pr.state === 'closed' ? now : null,
      merge_commit_sha: mergedRef,
      mergeable,
      html_url: `https://${this.host}/${owner}/${name}/pull/${number}`,
      head: {
        ...exHead,
        ref: pr.headBranch ?? `pr-${number}`,
        sha: pr.headSha,
        label: `${headOwner}:${pr.headBranch ?? `pr-${number}`}`,
        repo: this.repoOf(exHead.repo as JsonObject, headOwner, name),
      },
      base: { ...exBase, ref: base, sha: baseSha, label: `${owner}:${base}`, repo: this.repoOf(exBase.repo as JsonObject, owner, name) },
    };
  }

  private async listPulls(owner: string, name: string, query: URLSearchParams): Promise<Json> {
    if (query.get('state') !== 'open') this.problems.push('the double lists open pull requests only');
    const perPage = Number(query.get('per_page') ?? 30);
    const page = Number(query.get('page') ?? 1);
    // `head` is `user:branch` (GitHub ignores a filter without the user part, so the double refuses it).
    const head = query.get('head');
    if (head !== null && !head.includes(':')) this.problems.push(`head filter without its owner: ${head}`);
    const open = (await this.git.listOpenPullRequests(this.repoRef(owner, name))).filter(
      (pr) => head === null || `${owner}:${pr.headBranch ?? ''}`.toLowerCase() === head.toLowerCase(),
    );
    const [example] = documentedExample<JsonObject[]>({ method: 'get', path: '/repos/{owner}/{repo}/pulls' }, 200);
    const slice = open.slice((page - 1) * perPage, page * perPage);
    const items: Json[] = [];
    for (const pr of slice) {
      const full = await this.pullObject(owner, name, pr.number);
      const item: JsonObject = { ...(example as JsonObject) };
      for (const key of Object.keys(item)) if (key in full) item[key] = full[key] as Json;
      items.push(item);
    }
    return items;
  }

  /** POST /pulls: a pull request from a branch of the repository itself (forks are not modelled). */
  private async createPull(owner: string, name: string, body: JsonObject): Promise<[number, Json]> {
    const repo = this.repoRef(owner, name);
    const head = String(body.head ?? '');
    const branch = head.includes(':') ? head.slice(head.indexOf(':') + 1) : head;
    const base = String(body.base ?? '');
    const headSha = await this.git.branchHead(repo, branch);
    if (!headSha || !(await this.git.branchHead(repo, base))) {
      return [
        422,
        {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: headSha ? 'base' : 'head', code: 'invalid' }],
          documentation_url: 'https://docs.github.com/rest',
        },
      ];
    }
    const open = await this.git.listOpenPullRequests(repo);
    if (open.some((pr) => pr.headBranch === branch && (pr.baseBranch ?? 'main') === base)) {
      return [
        422,
        {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${owner}:${branch}.` }],
          documentation_url: 'https://docs.github.com/rest',
        },
      ];
    }
    const git = new GitRepository(this.repoDir(owner, name), { name: 'GitHub', email: 'noreply@github.com' });
    const numbers = (await git.refs(['refs/pull/'])).map((r) => Number(/^refs\/pull\/(\d+)\//.exec(r.ref)?.[1] ?? 0));
    const number = Math.max(API_PULL_NUMBERS_FROM, ...numbers) + 1;
    const record: CreatedPullRecord = {
      repo: `${owner}/${name}`,
      number,
      head: branch,
      base,
      title: String(body.title ?? ''),
      body: String(body.body ?? ''),
      draft: body.draft === true,
      state: 'open',
    };
    await this.writePull(owner, name, record);
    await git.updateRefs([{ ref: `refs/pull/${number}/head`, newSha: headSha }], 'double: pull request opened');
    this.createdPulls.push(record);
    await this.deliver('pull_request', await this.pullPayload(owner, name, number, 'opened'));
    return [201, await this.pullObject(owner, name, number)];
  }

  /**
   * PATCH /pulls/N: closing a pull request the double opened (closing twice changes nothing), or
   * changing any open pull request's base branch, as GitHub does when a stack is retargeted: the
   * base must exist (422 otherwise) and the change is announced by a `pull_request` `edited`
   * webhook naming the old base.
   */
  private async updatePull(owner: string, name: string, number: number, body: JsonObject): Promise<[number, Json]> {
    if (typeof body.base === 'string') return this.retarget(owner, name, number, body);
    const record = this.createdPulls.find((p) => p.repo === `${owner}/${name}` && p.number === number);
    if (!record) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    if (Object.keys(body).some((k) => k !== 'state') || body.state !== 'closed')
      this.problems.push(`the double only closes pull requests and changes their base: ${JSON.stringify(body)}`);
    if (body.state === 'closed' && record.state === 'open') {
      record.state = 'closed';
      await this.writePull(owner, name, record);
      await this.deliver('pull_request', await this.pullPayload(owner, name, number, 'closed'));
    }
    return [200, await this.pullObject(owner, name, number)];
  }

  private async retarget(owner: string, name: string, number: number, body: JsonObject): Promise<[number, Json]> {
    if (Object.keys(body).some((k) => k !== 'base')) this.problems.push(`the double changes a base alone: ${JSON.stringify(body)}`);
    const repo = this.repoRef(owner, name);
    const pr = await this.git.getPullRequest(repo, number);
    if (!pr) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    const base = body.base as string;
    if (pr.state !== 'open' || !(await this.git.branchHead(repo, base))) {
      return [
        422,
        {
          message: 'Validation Failed',
          documentation_url: 'https://docs.github.com/rest',
          errors: [{ resource: 'PullRequest', field: 'base', code: 'invalid' }],
        },
      ];
    }
    const from = pr.baseBranch ?? 'main';
    if (from !== base) {
      const file = pullMetadataPath(this.repoDir(owner, name), number);
      const current = (await readPullMetadata(this.repoDir(owner, name), number)) ?? {};
      await writeFile(file, JSON.stringify({ ...current, base }));
      this.retargets.push({ repo: `${owner}/${name}`, number, from, to: base });
      await this.deliver(
        'pull_request',
        await this.pullPayload(owner, name, number, 'edited', { changes: { base: { ref: { from }, sha: { from: pr.headSha } } } }),
      );
    }
    return [200, await this.pullObject(owner, name, number)];
  }

  private async writePull(owner: string, name: string, p: CreatedPullRecord): Promise<void> {
    const file = path.join(this.repoDir(owner, name), 'pulls', `${p.number}.json`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ title: p.title, author: 'openmq[bot]', base: p.base, headBranch: p.head, draft: p.draft, state: p.state }));
  }

  private async merge(owner: string, name: string, number: number, body: JsonObject): Promise<[number, Json]> {
    const repo = this.repoRef(owner, name);
    const pr = await this.git.getPullRequest(repo, number);
    if (!pr) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    if (pr.state !== 'open') return [405, { message: 'Pull Request is not mergeable' }];
    if (typeof body.sha === 'string' && body.sha !== pr.headSha) return [409, { message: 'Head branch was modified. Review and try the merge again.' }];
    const refusal = this.faults.mergeRefusal;
    if (refusal) return [refusal.status, { message: refusal.message, documentation_url: 'https://docs.github.com/rest' }];
    const fault = this.faults.mergeServerError;
    if (fault && fault.remaining > 0 && !fault.after) {
      fault.remaining--;
      return [500, { message: 'Server Error' }];
    }
    const base = pr.baseBranch ?? 'main';
    const head = await this.git.branchHead(repo, base);
    if (!head) return [422, { message: 'Base branch does not exist', documentation_url: 'https://docs.github.com/rest' }];
    const method = MERGE_METHODS[typeof body.merge_method === 'string' ? body.merge_method : 'merge'] ?? 'merge_commit';
    const result = await this.git.mergePullRequests(repo, {
      targetBranch: base,
      expectedHeadSha: head,
      method,
      pullRequests: [{ number, headSha: pr.headSha, title: pr.title, author: pr.author, headBranch: pr.headBranch }],
    });
    if (!result.ok) return [405, { message: 'Pull Request is not mergeable' }];
    await this.deliver('push', this.pushPayload(owner, name, `refs/heads/${base}`, head, result.newHeadSha));
    await this.deliver('pull_request', await this.pullPayload(owner, name, number, 'closed'));
    if (fault && fault.remaining > 0 && fault.after) {
      fault.remaining--;
      return [500, { message: 'Server Error' }];
    }
    return [200, { sha: result.newHeadSha, merged: true, message: 'Pull Request successfully merged' }];
  }

  private async getRef(op: MatchedOperation, owner: string, name: string): Promise<[number, Json]> {
    const ref = `refs/${op.params.ref ?? ''}`;
    const sha = await new GitRepository(this.repoDir(owner, name), { name: 'GitHub', email: 'noreply@github.com' }).refTarget(ref);
    if (!sha) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    const example = documentedExample<JsonObject>(op, 200);
    return [200, { ...example, ref, object: { ...(example.object as JsonObject), sha } }];
  }

  private async getContent(op: MatchedOperation, owner: string, name: string, ref: string): Promise<[number, Json]> {
    const file = op.params.path ?? '';
    const { stdout, exitCode } = await runGit(['cat-file', '-t', `${ref}:${file}`], { gitDir: this.repoDir(owner, name), okExitCodes: [128] });
    if (exitCode !== 0) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    if (stdout.toString().trim() !== 'blob') {
      return [200, []];
    }
    const content = (await runGit(['cat-file', 'blob', `${ref}:${file}`], { gitDir: this.repoDir(owner, name) })).stdout;
    const example = documentedExample<JsonObject>(op, 200, 'response-if-content-is-a-file');
    return [
      200,
      { ...example, type: 'file', encoding: 'base64', size: content.length, name: path.posix.basename(file), path: file, content: content.toString('base64') },
    ];
  }

  private rules(owner: string, name: string, branch: string): Json {
    const rules = this.protection.get(`${owner}/${name}/${branch}`.toLowerCase())?.rulesets ?? [];
    if (rules.length === 0) return [];
    return [
      {
        type: 'required_status_checks',
        ruleset_source_type: 'Repository',
        ruleset_source: `${owner}/${name}`,
        ruleset_id: 1,
        parameters: { strict_required_status_checks_policy: false, required_status_checks: rules.map((context) => ({ context })) },
      },
    ];
  }

  private classicProtection(op: MatchedOperation, owner: string, name: string): [number, Json] {
    const classic = this.protection.get(`${owner}/${name}/${op.params.branch ?? ''}`.toLowerCase())?.classic ?? null;
    if (!classic) return [404, { message: 'Branch not protected', documentation_url: 'https://docs.github.com/rest' }];
    const example = documentedExample<JsonObject>(op, 200);
    return [200, { ...example, contexts: classic, checks: classic.map((context) => ({ context, app_id: null })) }];
  }

  private async createStatus(op: MatchedOperation, owner: string, name: string, body: JsonObject): Promise<[number, Json]> {
    const sha = op.params.sha ?? '';
    const record = {
      sha,
      context: String(body.context ?? 'default'),
      state: String(body.state),
      target_url: typeof body.target_url === 'string' ? body.target_url : null,
    };
    this.statuses.push(record);
    const example = documentedExample<JsonObject>(op, 201);
    await this.deliver(
      'status',
      this.event('status', undefined, owner, name, {
        id: this.statuses.length,
        sha,
        name: `${owner}/${name}`,
        context: record.context,
        state: record.state,
        target_url: null,
        description: null,
        branches: [],
      }),
    );
    return [201, { ...example, state: record.state, context: record.context }];
  }

  private async createComment(
    op: MatchedOperation,
    owner: string,
    name: string,
    text: string,
    author: { login: string; type: 'User' | 'Bot' },
  ): Promise<[number, Json]> {
    const issue = Number(op.params.issue_number);
    if (!(await this.git.getPullRequest(this.repoRef(owner, name), issue)))
      return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    const record = await this.addComment(owner, name, issue, text, author);
    return [201, { ...documentedExample<JsonObject>(op, 201), id: record.id, body: text }];
  }

  /**
   * A person comments on pull request `issue` (as in GitHub's web page); GitHub delivers
   * `issue_comment` (created) as it does for every comment, the service's own included.
   */
  async comment(
    owner: string,
    name: string,
    issue: number,
    login: string,
    text: string,
    opts: { writtenAt?: Date } = {},
  ): Promise<{ comment: CommentRecord; deliveryId: string }> {
    const deliveryId = randomBytes(16).toString('hex');
    return { comment: await this.addComment(owner, name, issue, text, { login, type: 'User' }, deliveryId, opts.writtenAt), deliveryId };
  }

  /** A person adds or removes a label on pull request `number`; GitHub delivers `pull_request` labeled / unlabeled. */
  async label(owner: string, name: string, number: number, login: string, label: string, action: 'labeled' | 'unlabeled'): Promise<{ deliveryId: string }> {
    const key = `${owner}/${name}#${number}`;
    const rest = (this.labels.get(key) ?? []).filter((l) => l.toLowerCase() !== label.toLowerCase());
    this.labels.set(key, action === 'labeled' ? [...rest, label] : rest);
    // A label change updates the pull request, as on GitHub (second resolution, as GitHub writes it).
    this.pullUpdatedAt.set(key, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const hook = examplePayload('pull_request', action);
    const deliveryId = randomBytes(16).toString('hex');
    const sender = { ...((hook.sender ?? {}) as JsonObject), login, type: 'User' };
    const labelObject = {
      ...(hook.label as JsonObject),
      name: label,
      url: `${this.apiUrl}/repos/${owner}/${name}/labels/${encodeURIComponent(label)}`,
      default: false,
    };
    await this.deliver('pull_request', await this.pullPayload(owner, name, number, action, { label: labelObject, sender }), { deliveryId });
    return { deliveryId };
  }

  /** `writtenAt`: a comment's body as it was written then and is delivered now (what a replay of a captured body looks like). */
  private async addComment(
    owner: string,
    name: string,
    issue: number,
    text: string,
    author: { login: string; type: 'User' | 'Bot' },
    deliveryId?: string,
    writtenAt = new Date(),
  ): Promise<CommentRecord> {
    const record: CommentRecord = {
      id: this.comments.length + 1,
      repo: `${owner}/${name}`.toLowerCase(),
      issue,
      body: text,
      edits: 0,
      author: author.login,
      reactions: [],
      createdAt: writtenAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    this.comments.push(record);
    const hook = examplePayload('issue_comment', 'created');
    const user = { ...((hook.sender ?? {}) as JsonObject), login: author.login, type: author.type };
    const html = `https://${this.host}/${owner}/${name}/pull/${issue}`;
    await this.deliver(
      'issue_comment',
      this.event('issue_comment', 'created', owner, name, {
        // A pull request's comments are issue comments whose issue has `pull_request`.
        issue: {
          ...(hook.issue as JsonObject),
          number: issue,
          html_url: html,
          pull_request: {
            url: `${this.apiUrl}/repos/${owner}/${name}/pulls/${issue}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: null,
          },
        },
        comment: {
          ...(hook.comment as JsonObject),
          id: record.id,
          body: text,
          user,
          html_url: `${html}#issuecomment-${record.id}`,
          created_at: record.createdAt,
          updated_at: record.createdAt,
        },
        sender: user,
      }),
      deliveryId ? { deliveryId } : {},
    );
    return record;
  }

  private react(op: MatchedOperation, owner: string, name: string, content: string): [number, Json] {
    const record = this.comments.find((c) => c.id === Number(op.params.comment_id) && c.repo === `${owner}/${name}`.toLowerCase());
    if (!record) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    // The same reaction again answers the existing one (200), as on GitHub.
    const exists = record.reactions.includes(content);
    if (!exists) record.reactions.push(content);
    return [exists ? 200 : 201, { ...documentedExample<JsonObject>(op, exists ? 200 : 201), content }];
  }

  private collaboratorPermission(op: MatchedOperation, owner: string, name: string): Json {
    const login = op.params.username ?? '';
    const role = this.permissions.get(`${owner}/${name}:${login}`.toLowerCase()) ?? 'read';
    const example = documentedExample<JsonObject>(op, 200);
    // GitHub's example user lacks `role_name`, which the schema of the answer requires.
    return { ...example, permission: LEGACY_PERMISSION[role], role_name: role, user: { ...(example.user as JsonObject), login, role_name: role } };
  }

  private editComment(op: MatchedOperation, owner: string, name: string, text: string): [number, Json] {
    const record = this.comments.find((c) => c.id === Number(op.params.comment_id) && c.repo === `${owner}/${name}`.toLowerCase());
    if (!record) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    record.body = text;
    record.edits++;
    const example = documentedExample<JsonObject>({ method: 'post', path: '/repos/{owner}/{repo}/issues/{issue_number}/comments' }, 201);
    return [200, { ...example, id: record.id, body: text }];
  }

  /** The latest status per context on a commit (the double answers commit shas only). */
  private combinedStatus(op: MatchedOperation): Json {
    const sha = op.params.ref ?? '';
    const latest = new Map<string, StatusRecord>();
    for (const st of this.statuses) if (st.sha === sha) latest.set(st.context, st);
    const example = documentedExample<JsonObject>(op, 200);
    const [template] = example.statuses as JsonObject[];
    const statuses = [...latest.values()].map((st, i) => ({
      ...template,
      id: i + 1,
      state: st.state,
      context: st.context,
      target_url: st.target_url,
      description: null,
    }));
    const states = statuses.map((st) => st.state);
    const state = states.some((x) => x === 'failure' || x === 'error')
      ? 'failure'
      : states.length > 0 && states.every((x) => x === 'success')
        ? 'success'
        : 'pending';
    return { ...example, sha, state, statuses, total_count: statuses.length };
  }

  private listCheckRuns(op: MatchedOperation): Json {
    const sha = op.params.ref ?? '';
    const latest = new Map<string, CheckRunRecord>();
    for (const r of this.checkRuns) if (r.head_sha === sha) latest.set(r.name, r);
    const runs = [...latest.values()].map((r) => this.checkRunObject(op.params.owner ?? '', op.params.repo ?? '', r));
    return { total_count: runs.length, check_runs: runs };
  }

  private checkRunObject(owner: string, name: string, r: CheckRunRecord): JsonObject {
    const template = documentedExample<JsonObject>({ method: 'post', path: '/repos/{owner}/{repo}/check-runs' }, 201, 'example-of-completed-conclusion');
    return {
      ...template,
      id: r.id,
      head_sha: r.head_sha,
      name: r.name,
      status: r.status,
      conclusion: r.conclusion,
      html_url: `https://${this.host}/${owner}/${name}/runs/${r.id}`,
      details_url: r.details_url,
      check_suite: { id: r.suiteId },
    };
  }

  private async createCheckRun(owner: string, name: string, body: JsonObject): Promise<[number, Json]> {
    const headSha = String(body.head_sha);
    const suiteId = this.checkRuns.find((r) => r.head_sha === headSha)?.suiteId ?? 5000 + new Set(this.checkRuns.map((r) => r.head_sha)).size;
    const record: CheckRunRecord = {
      id: this.checkRuns.length + 1,
      suiteId,
      head_sha: headSha,
      name: String(body.name),
      status: String(body.status ?? 'queued'),
      conclusion: typeof body.conclusion === 'string' ? body.conclusion : null,
      details_url: typeof body.details_url === 'string' ? body.details_url : null,
    };
    if (record.conclusion) record.status = 'completed';
    this.checkRuns.push(record);
    const run = this.checkRunObject(owner, name, record);
    const action = record.status === 'completed' ? 'completed' : 'created';
    const hook = examplePayload('check_run', action);
    const hookRun = hook.check_run as JsonObject;
    const fields = {
      id: run.id,
      head_sha: run.head_sha,
      name: run.name,
      status: run.status,
      conclusion: run.conclusion,
      html_url: run.html_url,
      details_url: run.details_url,
    } as JsonObject;
    await this.deliver(
      'check_run',
      this.event('check_run', action, owner, name, {
        check_run: { ...hookRun, ...fields, check_suite: { ...(hookRun.check_suite as JsonObject), id: record.suiteId } },
      }),
    );
    return [201, run];
  }
}

/** A started double over the repositories under `root`. */
export function startGitHubDouble(root: string, opts: GitHubDoubleOptions = {}): Promise<GitHubDouble> {
  return new GitHubDouble(root, opts).start();
}
