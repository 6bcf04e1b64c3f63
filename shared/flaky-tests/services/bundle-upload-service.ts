// The hosted CLI's upload handshake (notes §2.1): createBundleUpload answers with a URL on this
// service; the CLI then PUTs the bundle there without an API token, as it would to a presigned
// object-store URL. The URL is `<base>/flaky-tests/bundle-uploads/<id>?key=<32 random bytes>`:
// unguessable (256-bit key, only its SHA-256 stored), single-use (claimed atomically), expiring.
import { randomBytes, randomUUID } from 'node:crypto';
import type { RepoRef } from '../../platform/repo-ref.js';
import { notFound } from '../../platform/errors.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { FlakySettings } from './flaky-settings.js';
import type { IngestAnswer, IngestService } from './ingest-service.js';
import type { RepoResolver } from './repo-resolver.js';

export interface CreatedBundleUpload {
  id: string;
  url: string;
  /** Object key the hosted product would use; informational. */
  key: string;
  expiresAt: Date;
}

/** Outside /v1: every /v1 request needs an API token, and the CLI's PUT carries none. */
export const BUNDLE_UPLOAD_PATH = '/flaky-tests/bundle-uploads';

export class BundleUploadService {
  private readonly now: () => Date;
  constructor(
    private readonly deps: {
      store: FlakyStore;
      resolver: RepoResolver;
      ingest: IngestService;
      settings: FlakySettings;
      now?: () => Date;
    },
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(orgId: string, input: { orgUrlSlug: string; repo: RepoRef; clientVersion: string | null }, baseUrl: string): Promise<CreatedBundleUpload> {
    const org = await this.deps.resolver.org(orgId, input.orgUrlSlug);
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const now = this.now();
    const expiresAt = new Date(now.getTime() + this.deps.settings.bundleUrlTtlSeconds * 1000);
    await this.deps.store.bundleUploads.create(
      {
        id,
        orgId: org.id,
        orgSlug: org.slug,
        repo: { host: input.repo.host, owner: input.repo.owner, name: input.repo.name },
        clientVersion: input.clientVersion,
        state: 'pending',
        createdAt: now,
        expiresAt,
        uploadId: null,
        error: null,
      },
      secret,
    );
    const url = `${baseUrl.replace(/\/+$/, '')}${BUNDLE_UPLOAD_PATH}/${id}?key=${secret}`;
    return { id, url, key: `bundles/${org.slug}/${id}.tar.zst`, expiresAt };
  }

  /**
   * Ingests the PUT body of an upload URL (the ingest job records how the URL's upload ended).
   * Unknown, wrong-key, used and expired URLs are all 404.
   */
  async receive(id: string, key: string, body: AsyncIterable<Uint8Array>): Promise<IngestAnswer> {
    const claim = await this.deps.store.bundleUploads.claim(id, key, this.now());
    if (!claim) throw notFound('upload_url_not_found', 'this upload URL is unknown, already used or expired');
    return this.deps.ingest.ingestUpload({ source: 'bundle', claim, body }, this.deps.settings.uploadWaitSeconds * 1000);
  }
}
