// Uploads a hostile client would send, over real HTTP: refusals before the body is read must
// answer their 4xx and leave the process alive; content that is not XML must be refused in
// bounded time; the event loop keeps answering /healthz meanwhile.
import http from 'node:http';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { ORG, REPO, bundle, junit, sha } from './flaky-support.js';

const GOOD_META = { repo: REPO, org_url_slug: ORG, commit_sha: sha(1), branch: 'main' };

function multipart(parts: { name: string; filename?: string; data: string | Buffer }[]): { body: Buffer; contentType: string } {
  const boundary = `----hostile${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}\r\n\r\n`), Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('flaky tests: hostile uploads', function () {
  let svc: TestService;

  beforeEach(async () => {
    svc = await startTestService({ startWorkers: true });
  });
  afterEach(async () => {
    await svc.close();
  });

  const post = async (parts: { name: string; filename?: string; data: string | Buffer }[]) => {
    const { body, contentType } = multipart(parts);
    const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, { method: 'POST', body, headers: { 'x-api-token': svc.token, 'content-type': contentType } });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  };

  /** Sends the body in small pieces, a turn of the event loop apart, as a slow network would. */
  const postInPieces = (parts: { name: string; filename?: string; data: string | Buffer }[]) =>
    new Promise<{ status: number; body: { error?: { code: string } } }>((resolve, reject) => {
      const { body, contentType } = multipart(parts);
      const req = http.request(`${svc.url}/v1/flaky-tests/upload`, {
        method: 'POST',
        headers: { 'x-api-token': svc.token, 'content-type': contentType, 'content-length': String(body.length) },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code: string } } }));
        res.on('error', reject);
      });
      let offset = 0;
      const writeNext = () => {
        if (req.destroyed) return;
        if (offset >= body.length) return void req.end();
        req.write(body.subarray(offset, offset + 256));
        offset += 256;
        setImmediate(writeNext);
      };
      writeNext();
    });

  it('answers every refusal made before the body is read, and the process lives on', async () => {
    const report = junit(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`t${i}`, 'p'])));
    expect(report.length).to.be.greaterThan(3000);
    const refusals: { parts: { name: string; filename?: string; data: string }[]; status: number; code: string }[] = [
      {
        parts: [
          { name: 'meta', data: JSON.stringify({ ...GOOD_META, commit_sha: 'ab' }) },
          { name: 'junit', filename: 'r.xml', data: report },
        ],
        status: 400,
        code: 'invalid_request',
      },
      {
        parts: [
          { name: 'junit', filename: 'r.xml', data: report },
          { name: 'meta', data: JSON.stringify(GOOD_META) },
        ],
        status: 400,
        code: 'meta_must_come_first',
      },
      {
        parts: [
          { name: 'meta', data: JSON.stringify(GOOD_META) },
          { name: 'surprise', filename: 's.bin', data: report },
          { name: 'junit', filename: 'r.xml', data: report },
        ],
        status: 400,
        code: 'unknown_part',
      },
      {
        parts: [
          { name: 'meta', data: JSON.stringify({ ...GOOD_META, org_url_slug: 'someone-else' }) },
          { name: 'junit', filename: 'r.xml', data: report },
        ],
        status: 404,
        code: 'organization_not_found',
      },
    ];
    for (let round = 0; round < 25; round++) {
      for (const r of refusals) {
        const res = await (round % 2 === 0 ? post(r.parts) : postInPieces(r.parts));
        expect(res.status, JSON.stringify(res.body)).to.equal(r.status);
        expect(res.body.error?.code).to.equal(r.code);
      }
    }
    const health = await svc.raw('GET', '/healthz');
    expect(health.status).to.equal(200);
  });

  it('refuses a report of NUL bytes quickly, as not XML', async () => {
    const started = Date.now();
    const res = await post([
      { name: 'meta', data: JSON.stringify(GOOD_META) },
      { name: 'junit', filename: 'nul.xml', data: Buffer.alloc(1024 * 1024) },
    ]);
    expect(res.status).to.equal(400);
    expect(res.body.error?.code).to.equal('no_junit_results');
    expect(Date.now() - started).to.be.lessThan(1500);
  });

  it('answers 400 no_junit_results for a bundle whose only report is a symlink', async () => {
    const created = await svc.post<{ url: string }>('/metrics/createBundleUpload', { repo: REPO, orgUrlSlug: ORG, clientVersion: 'test' });
    expect(created.status).to.equal(200);
    const meta = { version: '1', org: ORG, repo: { repo: REPO, repo_head_sha: sha(2), repo_head_branch: 'main' }, envs: {} };
    const body = await bundle([
      { name: 'meta.json', data: JSON.stringify(meta) },
      { name: 'junit/0', data: '', linkTo: '/etc/passwd' },
    ]);
    const res = await fetch(created.body.url, { method: 'PUT', body });
    const answer = (await res.json()) as { error?: { code: string } };
    expect(res.status, JSON.stringify(answer)).to.equal(400);
    expect(answer.error?.code).to.equal('no_junit_results');
  });
});
