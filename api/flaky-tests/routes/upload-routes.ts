// Upload endpoints that do not take a JSON body, mounted before the /v1 JSON router:
//  - POST /v1/flaky-tests/upload — the native multipart upload (API token required);
//  - PUT /flaky-tests/bundle-uploads/:id?key=… — the hosted CLI's bundle PUT to the URL that
//    createBundleUpload handed out; like a presigned URL it carries no API token, which is why it
//    lives outside /v1 (every /v1 request must carry one).
import Router from '@koa/router';
import { invalid } from '../../../shared/errors.js';
import type { FlakyServices } from '../../../shared/flaky-tests/services/flaky-services.js';
import type { IngestSession } from '../../../shared/flaky-tests/services/ingest-session.js';
import type { UploadMeta } from '../../../shared/flaky-tests/services/upload-meta.js';
import { normalizeVariant } from '../../../shared/flaky-tests/domain/test-identity.js';
import { parseUploadMeta, type UploadMetaBody } from '../schemas/upload-schemas.js';
import { serializeUploadResult } from '../serializers/settings.js';
import { authOf } from '../../middleware/auth.js';
import { BUNDLE_UPLOAD_PATH } from '../../../shared/flaky-tests/services/bundle-upload-service.js';
import { drainRefusedBody, isMultipart, partText, readMultipart } from '../multipart-upload.js';

const MAX_META_BYTES = 1024 * 1024;
const MAX_CODEOWNERS_BYTES = 1024 * 1024;
const MAX_FILES = 1000;
const PART_NAMES = 'meta, junit, codeowners';

function toMeta(body: UploadMetaBody): UploadMeta {
  return {
    repo: body.repo,
    orgUrlSlug: body.org_url_slug,
    sha: body.commit_sha.toLowerCase(),
    branch: body.branch,
    prNumber: body.pr_number && body.pr_number > 0 ? body.pr_number : null,
    variant: normalizeVariant(body.variant ?? ''),
    jobName: body.job_name ?? null,
    jobUrl: body.job_url ?? null,
    ciAttempt: body.attempt ?? null,
    startedAt: body.started_at ? new Date(body.started_at) : null,
  };
}

async function* textSource(text: string): AsyncGenerator<string> {
  yield text;
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

export function createFlakyUploadRouter(services: FlakyServices): Router {
  const router = new Router();

  // The API token is checked by the app-wide /v1 authentication.
  router.post('/v1/flaky-tests/upload', async (ctx) => {
    if (!isMultipart(ctx.get('content-type'))) {
      throw invalid('expected_multipart', `send multipart/form-data with the parts ${PART_NAMES}`);
    }
    const orgId = authOf(ctx.state).orgId;
    let session: IngestSession | null = null;
    let codeowners: string | null = null;
    let reports = 0;
    try {
      for await (const part of readMultipart(ctx.req, { maxBytes: services.settings.maxUploadBytes, maxFiles: MAX_FILES, maxFieldBytes: MAX_META_BYTES })) {
        if (part.name === 'meta') {
          if (session) throw invalid('duplicate_meta', 'only one meta part is allowed');
          session = await services.ingest.begin(orgId, parseMetaJson(await partText(part, MAX_META_BYTES)));
          if (codeowners !== null) session.setCodeowners(codeowners);
        } else if (part.name === 'junit' || part.name === 'junit[]') {
          if (!session) throw invalid('meta_must_come_first', 'the meta part must come before the junit parts');
          reports++;
          if (part.kind === 'field' && part.truncated) {
            throw invalid('report_too_large_for_a_field', `a junit report sent as a form field may have at most ${MAX_META_BYTES} bytes; send it as a file (-F junit=@report.xml)`);
          }
          if (part.kind === 'field') await session.addReport(`report-${reports}.xml`, textSource(part.value));
          else await session.addReport(part.filename ?? `report-${reports}.xml`, part.stream);
        } else if (part.name === 'codeowners') {
          const text = await partText(part, MAX_CODEOWNERS_BYTES);
          if (text === null) throw invalid('codeowners_too_large', `the codeowners part is larger than ${MAX_CODEOWNERS_BYTES} bytes`);
          codeowners = text;
          session?.setCodeowners(text);
        } else {
          throw invalid('unknown_part', `unknown part ${JSON.stringify(part.name)}; the parts are ${PART_NAMES}`);
        }
      }
      if (!session) throw invalid('missing_meta', 'the upload has no meta part', [{ path: '/meta', message: 'is required' }]);
      if (reports === 0) throw invalid('missing_junit', 'the upload has no junit part', [{ path: '/junit', message: 'is required' }]);
      const result = await session.finish();
      ctx.body = serializeUploadResult(result);
    } catch (err) {
      await session?.abort(err instanceof Error ? err.message : String(err));
      if (await drainRefusedBody(ctx.req)) ctx.set('Connection', 'close');
      throw err;
    }
  });

  router.put(`${BUNDLE_UPLOAD_PATH}/:id`, async (ctx) => {
    const key = typeof ctx.query.key === 'string' ? ctx.query.key : '';
    const id = ctx.params.id ?? '';
    if (!/^[0-9a-f-]{36}$/.test(id) || !/^[A-Za-z0-9_-]{20,100}$/.test(key)) {
      ctx.set('Connection', 'close');
      ctx.req.resume();
      throw invalid('invalid_upload_url', 'this is not an upload URL issued by createBundleUpload');
    }
    try {
      const result = await services.bundles.receive(id, key, ctx.req);
      ctx.body = serializeUploadResult(result);
    } catch (err) {
      if (await drainRefusedBody(ctx.req)) ctx.set('Connection', 'close');
      throw err;
    }
  });

  return router;
}
