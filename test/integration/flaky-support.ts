// Helpers shared by the flaky-tests integration tests: multipart uploads of real JUnit samples,
// list calls checked against the OpenAPI document, generated reports, and CLI bundles.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { expect } from 'chai';
import type { TestService } from '../../scripts/lib/test-service.js';
import { expectOpenApiResponse, openApiPaths } from '../helpers/openapi.js';

export const SAMPLES_DIR = fileURLToPath(new URL('../fixtures/junit-samples/', import.meta.url));
export const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const ORG = 'default';

export const sample = (name: string): Buffer => readFileSync(`${SAMPLES_DIR}${name}`);

export function sha(n: number | string): string {
  return String(n)
    .padStart(8, '0')
    .replace(/[^0-9a-f]/g, 'a')
    .repeat(5)
    .slice(0, 40);
}

export interface UploadFile {
  name: string;
  data: Buffer | string;
  gzip?: boolean;
}

export interface UploadMetaInput {
  repo?: { host: string; owner: string; name: string };
  org_url_slug?: string;
  commit_sha?: string;
  branch?: string;
  pr_number?: number;
  variant?: string;
  [key: string]: unknown;
}

export interface UploadBody {
  upload_id: string;
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  tests: number;
  excluded_from_detection: boolean;
  status_changes: number;
  files: {
    name: string;
    compressed: boolean;
    runs: number;
    passed: number;
    failed: number;
    skipped: number;
    warnings: { code: string }[];
    errors: { code: string; message: string }[];
  }[];
  warnings: { code: string; message: string }[];
}

export interface ErrorBody {
  error: { code: string; message: string; details: { path: string; message: string }[] };
}

/** POST /v1/flaky-tests/upload with `meta` first, then the files, then an optional CODEOWNERS. */
export async function upload(
  svc: TestService,
  meta: UploadMetaInput | null,
  files: (string | UploadFile)[],
  opts: { token?: string; codeowners?: string; metaLast?: boolean } = {},
): Promise<{ status: number; body: UploadBody & ErrorBody }> {
  const fd = new FormData();
  const fullMeta = meta === null ? null : { repo: REPO, org_url_slug: ORG, commit_sha: sha(1), branch: 'main', ...meta };
  if (fullMeta && !opts.metaLast) fd.append('meta', JSON.stringify(fullMeta));
  for (const f of files) {
    const file: UploadFile = typeof f === 'string' ? { name: f, data: sample(f) } : f;
    const raw = typeof file.data === 'string' ? Buffer.from(file.data) : file.data;
    fd.append('junit', new Blob([file.gzip ? gzipSync(raw) : raw]), file.gzip ? `${file.name}.gz` : file.name);
  }
  if (fullMeta && opts.metaLast) fd.append('meta', JSON.stringify(fullMeta));
  if (opts.codeowners !== undefined) fd.append('codeowners', new Blob([opts.codeowners]), 'CODEOWNERS');
  const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, { method: 'POST', body: fd, headers: { 'x-api-token': opts.token ?? svc.token } });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as UploadBody & ErrorBody };
}

export async function uploadOk(
  svc: TestService,
  meta: UploadMetaInput | null,
  files: (string | UploadFile)[],
  opts: { token?: string; codeowners?: string } = {},
): Promise<UploadBody> {
  const res = await upload(svc, meta, files, opts);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Uploads one run on main where test `a` fails (others as given) and answers `a`'s test id. */
export async function failingTestId(svc: TestService, cases: Record<string, string> = { a: 'f' }): Promise<string> {
  await uploadOk(svc, { branch: 'main', commit_sha: sha(1) }, [{ name: 'r.xml', data: junit(cases) }]);
  const failing = await svc.post<{ tests: { id: string; name: string }[] }>('/flaky-tests/list-failing-tests', {
    repo: REPO,
    org_url_slug: ORG,
    page_query: { page_size: 10 },
    start_time: new Date(Date.now() - 3_600_000).toISOString(),
    end_time: new Date(Date.now() + 60_000).toISOString(),
  });
  const test = failing.body.tests.find((t) => t.name === 'a');
  if (!test) throw new Error(`test a is not failing: ${JSON.stringify(failing.body)}`);
  return test.id;
}

export interface WireTest {
  id: string;
  name: string;
  variant: string;
  status: { value: string; reason: string; timestamp: string };
  quarantined: boolean;
  codeowners: string[];
  file_path?: string;
  parent?: string;
  classname?: string;
  pull_requests_impacted_last_7d: number;
  failure_rate_last_7d?: number;
  failure_rate_last_24h?: number;
  most_common_failures?: { summary: string; occurrence_count: number; last_occurrence?: string }[];
  ticket?: { html_url: string };
  html_url: string;
}

export interface WirePage {
  total_rows: number;
  total_pages: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
  page_index: number;
}

const DOCUMENTED = new Set(openApiPaths());

/**
 * A flaky-tests call expected to succeed; bodies of endpoints the OpenAPI document describes are
 * checked against it (this service's own endpoints are not in it).
 */
export async function call<T>(svc: TestService, path: string, body: Record<string, unknown>, opts: { token?: string } = {}): Promise<T> {
  const res = await svc.post<T>(path, body, opts.token ? { token: opts.token } : {});
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
  if (DOCUMENTED.has(path)) expectOpenApiResponse(path, res.body);
  return res.body;
}

export async function unhealthy(
  svc: TestService,
  status: 'FLAKY' | 'BROKEN',
  extra: Record<string, unknown> = {},
): Promise<{ tests: WireTest[]; page: WirePage }> {
  return call(svc, '/flaky-tests/list-unhealthy-tests', { repo: REPO, org_url_slug: ORG, status, page_query: { page_size: 100 }, ...extra });
}

export async function failing(
  svc: TestService,
  start: Date,
  end: Date,
  pageQuery: Record<string, unknown> = { page_size: 100 },
): Promise<{ tests: WireTest[]; page: WirePage }> {
  return call(svc, '/flaky-tests/list-failing-tests', {
    repo: REPO,
    org_url_slug: ORG,
    start_time: start.toISOString(),
    end_time: end.toISOString(),
    page_query: pageQuery,
  });
}

export async function quarantineConfig(svc: TestService): Promise<{ isDisabled: boolean; testIds: string[] }> {
  const res = await svc.post<{ isDisabled: boolean; testIds: string[] }>('/metrics/getQuarantineConfig', { repo: REPO, orgUrlSlug: ORG, testIdentifiers: [] });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

export async function updateSettings(svc: TestService, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await svc.post<Record<string, unknown>>('/flaky-tests/update-repo-settings', { repo: REPO, org_url_slug: ORG, ...body });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** A JUnit report with the given outcomes per test name (`p` passed, `f` failed, `s` skipped). */
export function junit(
  tests: Record<string, string>,
  opts: { suite?: string; classname?: string; file?: string; message?: (name: string) => string } = {},
): string {
  const cases = Object.entries(tests)
    .flatMap(([name, outcomes]) =>
      [...outcomes].map((o) => {
        const attrs = `name="${name}" classname="${opts.classname ?? 'pkg.Suite'}"${opts.file ? ` file="${opts.file}"` : ''} time="0.01"`;
        if (o === 'f') return `<testcase ${attrs}><failure message="${opts.message?.(name) ?? `expected 1 but got 2 in ${name}`}">stack</failure></testcase>`;
        if (o === 's') return `<testcase ${attrs}><skipped/></testcase>`;
        return `<testcase ${attrs}/>`;
      }),
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="${opts.suite ?? 'suite'}">\n${cases}\n</testsuite></testsuites>\n`;
}

/** A zstd frame of Raw blocks (RFC 8878 §3.1.1.2): valid zstd that any decoder reads, uncompressed. */
export function zstdRawFrame(data: Uint8Array): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3])];
  const blockSize = 128 * 1024;
  let offset = 0;
  do {
    const size = Math.min(blockSize, data.length - offset);
    const last = offset + size >= data.length ? 1 : 0;
    const header = (size << 3) | last;
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), Buffer.from(data.subarray(offset, offset + size)));
    offset += size;
  } while (offset < data.length);
  return Buffer.concat(parts);
}

/** A hosted-CLI bundle: tar (meta.json first, then the entries) compressed with zstd. */
export async function bundle(entries: { name: string; data: string | Buffer; linkTo?: string }[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    p.on('data', (c: unknown) => {
      chunks.push(c as Buffer);
    });
    p.on('end', () => resolve());
    p.on('error', reject);
  });
  for (const e of entries) {
    const header = e.linkTo === undefined ? { name: e.name } : { name: e.name, type: 'symlink' as const, linkname: e.linkTo };
    await new Promise<void>((resolve, reject) =>
      p.entry(header, typeof e.data === 'string' ? Buffer.from(e.data) : e.data, (err) => (err ? reject(err) : resolve())),
    );
  }
  p.finalize();
  await done;
  return zstdRawFrame(Buffer.concat(chunks));
}
