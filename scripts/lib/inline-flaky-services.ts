// Flaky-tests services whose flaky-ingest job runs inline, in the enqueueing call (no Redis, no
// worker): for tests and benchmarks that drive the services directly. Uploads still go through
// the blob store and the received-upload records, as in production.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFlakyServices, type FlakyServiceDeps, type FlakyServices } from '../../shared/flaky-tests/services/flaky-services.js';
import type { IngestAnswer } from '../../shared/flaky-tests/services/ingest-service.js';
import { FileUploadBlobStore } from '../../shared/flaky-tests/store/file-upload-blob-store.js';
import type { UploadMeta, UploadResult } from '../../shared/flaky-tests/domain/model.js';

export function createInlineFlakyServices(deps: Omit<FlakyServiceDeps, 'blobs' | 'requestIngest'>): FlakyServices {
  const blobs = new FileUploadBlobStore(path.join(mkdtempSync(path.join(tmpdir(), 'openmq-blobs-')), 'flaky-uploads'));
  const services: FlakyServices = createFlakyServices({
    ...deps,
    blobs,
    requestIngest: async (job) => void (await services.ingest.processRepository(job.repoId)),
  });
  return services;
}

/** Uploads one report through the ingest use case and answers its result. */
export async function ingestReport(services: FlakyServices, orgId: string, meta: UploadMeta, name: string, xml: string): Promise<UploadResult> {
  const parts = (async function* () {
    yield {
      kind: 'report' as const,
      name,
      bytes: (async function* () {
        yield xml;
      })(),
    };
  })();
  const answer: IngestAnswer = await services.ingest.ingestUpload({ source: 'native', orgId, meta, parts }, 60_000);
  if (answer.state !== 'complete') throw new Error(`upload ${answer.uploadId} not processed`);
  return answer.result;
}
