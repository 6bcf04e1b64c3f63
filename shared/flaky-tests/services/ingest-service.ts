// Entry points of ingestion: open an upload for the native multipart endpoint (the HTTP layer
// streams parts into the session), or ingest a whole CLI bundle from its byte stream.
import type { Logger } from '../../logging.js';
import type { FlakyStore } from '../store/flaky-store.js';
import { defaultDetectionConfig } from '../domain/detection/config.js';
import { AppError, invalid } from '../../errors.js';
import { BundleError, openBundle, type BundleLimits } from '../formats/bundle/index.js';
import type { DetectionService } from './detection-service.js';
import type { FlakySettings } from './flaky-settings.js';
import { IngestSession, type UploadResult } from './ingest-session.js';
import type { RepoResolver } from './repo-resolver.js';
import type { UploadMeta } from './upload-meta.js';
import { metaFromBundle } from './bundle-meta.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { BundleUpload } from '../store/bundle-upload-repository.js';

const MAX_CODEOWNERS_BYTES = 1024 * 1024;

export interface IngestServiceDeps {
  store: FlakyStore;
  resolver: RepoResolver;
  detection: DetectionService;
  settings: FlakySettings;
  logger: Logger;
  now?: () => Date;
}

async function readText(stream: AsyncIterable<Buffer | Uint8Array | string>, limit: number): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    size += b.length;
    if (size > limit) return null;
    parts.push(b);
  }
  return Buffer.concat(parts).toString('utf8');
}

export class IngestService {
  private readonly now: () => Date;
  private readonly repoLock = new KeyedMutex();
  constructor(private readonly deps: IngestServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Opens an upload for the token's organisation. `org_url_slug` must be that organisation's;
   * the repository is created on its first upload.
   */
  async begin(orgId: string, meta: UploadMeta, source: 'native' | 'bundle' = 'native'): Promise<IngestSession> {
    const org = await this.deps.resolver.org(orgId, meta.orgUrlSlug);
    const detection = defaultDetectionConfig();
    detection.infrastructure.threshold = this.deps.settings.infraFailureThreshold;
    const repo = await this.deps.store.repos.ensure(org.id, meta.repo, this.now(), detection);
    const session = new IngestSession(
      { store: this.deps.store, repoLock: this.repoLock, detection: this.deps.detection, settings: this.deps.settings, logger: this.deps.logger, now: this.now },
      org,
      repo,
      meta,
      source,
    );
    await session.start();
    return session;
  }

  /** Reads a CLI bundle (tar + zstd: meta.json, junit/N, CODEOWNERS…) and stores it. */
  async ingestBundle(claim: BundleUpload, body: AsyncIterable<Uint8Array>): Promise<UploadResult> {
    const limits: BundleLimits = { maxCompressedBytes: this.deps.settings.maxUploadBytes, maxEntryBytes: this.deps.settings.maxReportBytes };
    let session: IngestSession | null = null;
    try {
      const bundle = await openBundle(body, limits);
      const meta: UploadMeta = metaFromBundle(bundle.meta, claim);
      session = await this.begin(claim.orgId, meta, 'bundle');
      let skippedInternal = 0;
      for await (const file of bundle.files) {
        if (file.kind === 'junit') {
          await session.addReport(file.originalPath ?? file.path, file.stream);
        } else if (file.kind === 'codeowners') {
          const text = await readText(file.stream, MAX_CODEOWNERS_BYTES);
          if (text === null) session.addWarning({ level: 'warning', code: 'codeowners-too-large', message: `CODEOWNERS over ${MAX_CODEOWNERS_BYTES} bytes ignored` });
          else session.setCodeowners(text);
        } else if (file.kind === 'internal-bin') {
          skippedInternal++;
        }
      }
      if (skippedInternal > 0) {
        session.addWarning({
          level: 'warning',
          code: 'internal-bin-ignored',
          message: `${skippedInternal} protobuf report(s) (internal.bin) ignored: this service reads the JUnit files of a bundle`,
        });
      }
      return await session.finish();
    } catch (err) {
      await session?.abort(err instanceof Error ? err.message : String(err));
      if (err instanceof BundleError) {
        if (err.code === 'too-large' || err.code === 'entry-too-large') throw new AppError('too_large', 'bundle_too_large', err.message);
        throw invalid(`bundle_${err.code.replace(/-/g, '_')}`, `the bundle cannot be read: ${err.message}`);
      }
      throw err;
    }
  }
}
