// Failed authentication (issue 22 §3): unknown tokens from one client address are answered 429
// with Retry-After once its budget is spent, before the token is even looked up; other addresses
// and valid tokens never spend it; and refusals are logged with their real status, at warn, with
// a mark of the token that is not the token.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { generateToken } from '../../shared/platform/accounts/token-repository.js';

interface ErrorBody {
  error: { code: string; message: string };
}

interface LogLine {
  level: number;
  msg: string;
  status?: number;
  route?: string;
  requestId?: string;
  tokenMark?: string;
  client?: string;
}

const WARN = 40;
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };

describe('failed authentication', function () {
  this.timeout(60_000);
  let svc: TestService;
  const lines: LogLine[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    // TRUST_PROXY: the tests play several client addresses through X-Forwarded-For.
    svc = await startTestService({ env: { AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' }, logSink: sink });
    await createRepo(svc.gitRoot, { repo: DEFAULT_REPO });
    expect((await svc.post('/createQueue', ref)).status).to.equal(200);
  });
  after(async () => {
    await svc.close();
  });

  const from = (address: string, token: string | null) => svc.post<ErrorBody>('/getQueue', ref, { token, headers: { 'x-forwarded-for': address } });

  it('answers 429 with Retry-After once an address has presented too many unknown tokens, and only to that address', async () => {
    const guesser = '127.0.0.7';
    for (let i = 0; i < 3; i++) {
      const res = await from(guesser, generateToken());
      expect(res.status, `guess ${i}`).to.equal(401);
      expect(res.body.error.code).to.equal('invalid_token');
      // Before the budget is spent, a valid token from the same address is served and spends nothing.
      if (i < 2) expect((await from(guesser, svc.token)).status).to.equal(200);
    }
    const limited = await from(guesser, generateToken());
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal('too_many_failed_authentications');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    // Refused before the token is looked up: the address waits, whatever it presents.
    expect((await from(guesser, svc.token)).status).to.equal(429);
    // Another address is not affected, and missing tokens are not guesses.
    expect((await from('127.0.0.20', svc.token)).status).to.equal(200);
    for (let i = 0; i < 5; i++) expect((await from('127.0.0.21', null)).status).to.equal(401);
    expect((await from('127.0.0.21', svc.token)).status).to.equal(200);
  });

  it('logs 401, 403 and 429 with their own status at warn, and an unknown token only by a mark', async () => {
    const guess = generateToken();
    const unknown = await from('127.0.0.50', guess);
    expect(unknown.status).to.equal(401);
    const reader = generateToken();
    await svc.ctx.accounts.store.tokens.register(svc.orgId, reader, 'reader', { role: 'read' });
    const refused = await svc.post<ErrorBody>('/createToken', { name: 'x', role: 'admin' }, { token: reader });
    expect(refused.status).to.equal(403);

    const requestLine = (res: { headers: Headers }) => lines.find((l) => l.msg === 'request' && l.requestId === res.headers.get('x-request-id'));
    expect(requestLine(unknown)).to.include({ level: WARN, status: 401, route: '/v1/getQueue' });
    const readerId = (await svc.ctx.accounts.store.tokens.authenticate(reader))?.id;
    // The line names the credential by id, so every use of a token (or a v2 key) is attributable.
    expect(requestLine(refused)).to.include({ level: WARN, status: 403, route: '/v1/createToken', credential: readerId });
    expect(requestLine(unknown)).not.to.have.property('credential');
    const key = await svc.post<{ id: string; key: string }>('/createApiKey', { name: 'logged', permissions: [] });
    const v2 = await fetch(`${svc.url}/v2/merge-queues`, { headers: { authorization: `Bearer ${key.body.key}` } });
    expect(v2.status).to.equal(200);
    expect(requestLine(v2)).to.include({ status: 200, credential: key.body.id });
    expect(JSON.stringify(lines)).not.to.include(key.body.key);
    const failure = lines.find((l) => l.msg.startsWith('authentication failed') && l.client === '127.0.0.50');
    expect(failure?.level).to.equal(WARN);
    expect(failure?.tokenMark).to.match(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(lines)).not.to.include(guess);
    expect(JSON.stringify(lines)).not.to.include(svc.token);
  });
});
