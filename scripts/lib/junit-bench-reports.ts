// JUnit reports and uploads for the flaky-tests benchmarks (bench-flaky.ts, bench-ingest-service.ts):
// generated reports of a realistic mix of tests, a streamed multipart upload followed to its
// result as a CI client would, and the parser alone over the same bytes (the ceiling).
import { parseJUnit } from '../../shared/flaky-tests/formats/junit/index.js';
import type { RepoRef } from '../../shared/platform/repo-ref.js';

const MiB = 2 ** 20;

/** Where uploads go: the API's base URL (no /v1) and a token. */
export interface UploadTarget {
  url: string;
  token: string;
}

/** One test's line, 2 % flaky at 20 %, 0.5 % broken, the rest failing 0.1 % of the time. */
export function testcase(n: number, group: string, random: () => number): string {
  const kind = n % 200 === 0 ? 'broken' : n % 50 === 1 ? 'flaky' : 'stable';
  const p = kind === 'broken' ? 1 : kind === 'flaky' ? 0.2 : 0.001;
  const module = Math.floor(n / 50);
  const attrs = `name="test_case_${String(n).padStart(7, '0')}" classname="${group}.module${module}.Tests" file="src/${group}/module${module}/tests.py" time="${(random() * 2).toFixed(3)}"`;
  if (random() >= p) return `<testcase ${attrs}/>`;
  const port = 1024 + Math.floor(random() * 60000);
  return `<testcase ${attrs}><failure message="AssertionError: expected status 200 but got 503 from http://127.0.0.1:${port}/api after ${Math.floor(random() * 5000)}ms">Traceback (most recent call last):\n  File "tests.py", line 42\nAssertionError: expected status 200 but got 503</failure></testcase>`;
}

/** One report of `tests` testcases in chunks of about 1 MiB (what the parser and the upload both read). */
export function bigReport(tests: number, random: () => number): Buffer[] {
  const chunks: Buffer[] = [Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="big">\n')];
  let lines: string[] = [];
  let length = 0;
  for (let n = 0; n < tests; n++) {
    const line = testcase(n, 'big', random);
    lines.push(line);
    length += line.length + 1;
    if (length >= MiB) {
      chunks.push(Buffer.from(lines.join('\n') + '\n'));
      lines = [];
      length = 0;
    }
  }
  chunks.push(Buffer.from(`${lines.join('\n')}\n</testsuite></testsuites>\n`));
  return chunks;
}

/** Uploads one report over HTTP (multipart, streamed) and answers the runs the service stored. */
export async function httpUpload(
  svc: UploadTarget,
  repo: { repo: RepoRef; org_url_slug: string },
  meta: Record<string, unknown>,
  report: readonly Buffer[],
): Promise<number> {
  const boundary = `----bench${Math.random().toString(16).slice(2)}`;
  const body = (async function* (): AsyncGenerator<Uint8Array> {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify({ ...repo, ...meta })}\r\n`);
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="junit"; filename="report.xml"\r\nContent-Type: application/xml\r\n\r\n`);
    yield* report;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  })();
  const res = await fetch(`${svc.url}/v1/flaky-tests/upload`, {
    method: 'POST',
    body: ReadableStream.from(body),
    headers: { 'x-api-token': svc.token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    duplex: 'half',
  } as RequestInit);
  if (res.status === 202) return (await uploadOutcome(svc, ((await res.json()) as { upload_id: string }).upload_id)).runs;
  const out = (await res.json()) as { runs: number };
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(out)}`);
  return out.runs;
}

/** Follows an upload answered 202 (processing outlasted FLAKY_UPLOAD_WAIT_SECONDS) to its result, as a CI client would. */
async function uploadOutcome(svc: UploadTarget, uploadId: string): Promise<{ runs: number }> {
  for (;;) {
    const res = await fetch(`${svc.url}/v1/flaky-tests/upload-status?upload_id=${uploadId}`, { headers: { 'x-api-token': svc.token } });
    const body = (await res.json()) as { state: string; result: { runs: number } | null; error: unknown };
    if (res.status !== 200 || body.error) throw new Error(`upload ${uploadId}: ${res.status} ${JSON.stringify(body)}`);
    if (body.result) return body.result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The parser alone over the same bytes: runs per second, the ceiling of ingestion. */
export async function parserRate(report: readonly Buffer[]): Promise<number> {
  const started = performance.now();
  let runs = 0;
  const source = (async function* () {
    yield* report;
  })();
  for await (const item of parseJUnit(source)) if (item.kind !== 'issue') runs++;
  return runs / ((performance.now() - started) / 1000);
}
