// Upload endpoints that do not take a JSON body (their operations read the request stream):
//  - POST /v1/flaky-tests/upload — the native multipart upload (API token required);
//  - PUT /flaky-tests/bundle-uploads/:id?key=… — the hosted CLI's bundle PUT to the URL that
//    createBundleUpload handed out; like a presigned URL it carries no API token: the key is
//    checked by the use case;
//  - GET /v1/flaky-tests/upload-status?upload_id=… — the state of an upload answered 202.
// Both uploads call the one ingest use case; these handlers only translate HTTP to it.
import type { Context } from 'koa';
import { invalid } from '../../../shared/platform/errors.js';
import type { FlakyServices } from '../../../shared/flaky-tests/services/flaky-services.js';
import type { IngestAnswer, UploadPart } from '../../../shared/flaky-tests/services/ingest-service.js';
import { normalizeUploadMeta } from '../../../shared/flaky-tests/domain/upload-meta.js';
import { readText } from '../../../shared/flaky-tests/formats/read-text.js';
import { parseUploadMeta, type UploadMetaBody } from '../schemas/upload-schemas.js';
import { serializeUploadResult } from '../serializers/settings.js';
import { serializeAccepted, serializeUploadStatus } from '../serializers/upload-status.js';
import { parseUploadStatusQuery } from '../schemas/upload-schemas.js';
import { actorOf } from '../../middleware/auth.js';
import type { OperationRoutes } from '../../routing/operation-router.js';
import { drainRefusedBody, isMultipart, readMultipart, type MultipartPart } from './multipart-upload.js';
import { baseUrlOf } from './test-routes.js';
import type { UploadMeta } from '../../../shared/flaky-tests/domain/model.js';

const MAX_META_BYTES = 1024 * 1024;
const MAX_FILES = 1000;
const PART_NAMES = 'meta, junit, codeowners';

function toMeta(body: UploadMetaBody): UploadMeta {
  return normalizeUploadMeta({
    repo: body.repo,
    orgUrlSlug: body.org_url_slug,
    sha: body.commit_sha,
    branch: body.branch,
    prNumber: body.pr_number ?? null,
    variant: body.variant ?? '',
    jobName: body.job_name ?? null,
    jobUrl: body.job_url ?? null,
    ciAttempt: body.attempt ?? null,
    startedAt: body.started_at ? new Date(body.started_at) : null,
  });
}

function parseMetaJson(text: string | null): UploadMeta {
  if (text === null) throw invalid('invalid_meta', `the meta part is larger than ${MAX_META_BYTES} bytes`, [{ path: '/meta', message: 'too large' }]);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('invalid_meta', 'the meta part is not valid JSON', [{ path: '/meta', message: 'is not valid JSON' }]);
  }
  return toMeta(parseUploadMeta(json));
}

/** A part's bytes, whether it came as a form field or a file. */
function bytesOf(part: MultipartPart): AsyncIterable<Uint8Array | string> {
  if (part.kind === 'file') return part.stream as AsyncIterable<Buffer>;
  if (part.truncated)
    // eslint-disable-next-line require-yield -- a source that fails when read, like a stream that errors
    return (async function* (): AsyncGenerator<string> {
      throw invalid(
        'part_too_large_for_a_field',
        `a ${part.name} part sent as a form field may have at most ${MAX_META_BYTES} bytes; send it as a file (-F ${part.name}=@file)`,
      );
    })();
  return (async function* () {
    yield part.value;
  })();
}

/** The parts after `meta`, as the ingest use case takes them; refuses misplaced or unknown parts. */
async function* uploadParts(parts: AsyncIterator<MultipartPart>): AsyncGenerator<UploadPart> {
  let reports = 0;
  for (;;) {
    const next = await parts.next();
    if (next.done) return;
    const part = next.value;
    if (part.name === 'junit' || part.name === 'junit[]') {
      reports++;
      const name = part.kind === 'file' && part.filename ? part.filename : `report-${reports}.xml`;
      yield { kind: 'report', name, bytes: bytesOf(part) };
    } else if (part.name === 'codeowners') {
      yield { kind: 'codeowners', bytes: bytesOf(part) };
    } else if (part.name === 'meta') {
      throw invalid('duplicate_meta', 'only one meta part is allowed');
    } else {
      throw invalid('unknown_part', `unknown part ${JSON.stringify(part.name)}; the parts are ${PART_NAMES}`);
    }
  }
}

function answer(ctx: Context, services: Pick<FlakyServices, 'settings'>, result: IngestAnswer): void {
  if (result.state === 'complete') {
    ctx.body = serializeUploadResult(result.result);
    return;
  }
  ctx.status = 202;
  ctx.body = serializeAccepted(result.uploadId, baseUrlOf(ctx, services.settings.publicUrl));
}

export function registerFlakyUploadRoutes(routes: OperationRoutes, services: Pick<FlakyServices, 'settings' | 'ingest' | 'bundles'>): void {
  const waitMs = services.settings.uploadWaitSeconds * 1000;

  routes.handle('uploadTestResults', async (ctx) => {
    if (!isMultipart(ctx.get('content-type'))) {
      throw invalid('expected_multipart', `send multipart/form-data with the parts ${PART_NAMES}`);
    }
    const orgId = actorOf(ctx.state).orgId;
    const parts = readMultipart(ctx.req, { maxBytes: services.settings.maxUploadBytes, maxFiles: MAX_FILES, maxFieldBytes: MAX_META_BYTES });
    try {
      const first = await parts.next();
      if (first.done) throw invalid('missing_meta', 'the upload has no meta part', [{ path: '/meta', message: 'is required' }]);
      if (first.value.name !== 'meta') throw invalid('meta_must_come_first', 'the meta part must come before the junit parts');
      const meta = parseMetaJson(await readText(bytesOf(first.value), MAX_META_BYTES));
      answer(ctx, services, await services.ingest.ingestUpload({ source: 'native', orgId, meta, parts: uploadParts(parts) }, waitMs));
    } catch (err) {
      await parts.return(undefined);
      if (await drainRefusedBody(ctx.req)) ctx.set('Connection', 'close');
      throw err;
    }
  });

  routes.handle('getUploadStatus', async (ctx) => {
    const query = parseUploadStatusQuery({ ...ctx.query });
    ctx.body = serializeUploadStatus(await services.ingest.status(actorOf(ctx.state).orgId, query.upload_id));
  });

  routes.handle('putBundleUpload', async (ctx) => {
    const key = typeof ctx.query.key === 'string' ? ctx.query.key : '';
    const id = ctx.params.id ?? '';
    if (!/^[0-9a-f-]{36}$/.test(id) || !/^[A-Za-z0-9_-]{20,100}$/.test(key)) {
      ctx.set('Connection', 'close');
      ctx.req.resume();
      throw invalid('invalid_upload_url', 'this is not an upload URL issued by createBundleUpload');
    }
    try {
      answer(ctx, services, await services.bundles.receive(id, key, ctx.req));
    } catch (err) {
      if (await drainRefusedBody(ctx.req)) ctx.set('Connection', 'close');
      throw err;
    }
  });
}
