// The ingest use case, both halves:
//  - ingestUpload (API): checks who is uploading, stores what arrived — reports (native multipart)
//    or the CLI bundle as blobs, and a received-upload record — asks for the flaky-ingest job, and
//    waits a bounded time for its outcome;
//  - processRepository (flaky-ingest job): processes a repository's received uploads one at a
//    time, oldest first: parse, store test case runs and evidence, classify. An attempt that dies
//    mid-way is run again from the blobs after dropping what it wrote.
import { randomUUID } from 'node:crypto';
import { AppError, invalid } from '../../platform/errors.js';
import type { Logger } from '../../platform/logging.js';
import { initialDetectionConfig } from '../domain/detection/config.js';
import { BundleError, openBundle } from '../formats/bundle/index.js';
import type { ByteSource } from '../formats/junit/index.js';
import { readText } from '../formats/read-text.js';
import type { UploadBlobStore } from '../store/upload-blob-store.js';
import { metaFromBundle } from '../formats/bundle/bundle-upload-meta.js';
import type { DetectionService } from './detection-service.js';
import type { FlakySettings } from './flaky-settings.js';
import type { IngestRepositories } from './ingest-repositories.js';
import { IngestSession } from './ingest-session.js';
import type { RepoResolver } from './repo-resolver.js';
import { NO_TEST_RUN_LINKS, type TestRunLinks } from './test-run-links.js';
import type { BundleUpload, ReceivedUpload, UploadMeta, UploadOutcome, UploadRefusal, UploadResult } from '../domain/model.js';

/** Largest CODEOWNERS file read, whichever way it arrives. */
export const MAX_CODEOWNERS_BYTES = 1024 * 1024;
/** Attempts at one upload before it is refused (a worker dying on it every time). */
const MAX_ATTEMPTS = 5;
/** An upload waiting this long has lost its job (a crash between storing it and enqueueing). */
const LOST_AFTER_MS = 60_000;
/** Polling of a received upload's state while the API waits for it (an upload processed in this process wakes its waiter at once). */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;

export type UploadPart = { kind: 'report'; name: string; bytes: ByteSource } | { kind: 'codeowners'; bytes: ByteSource };

export type UploadRequest =
  | { source: 'native'; orgId: string; meta: UploadMeta; parts: AsyncIterable<UploadPart> }
  | { source: 'bundle'; claim: BundleUpload; body: AsyncIterable<Uint8Array> };

export type IngestAnswer = { state: 'complete'; result: UploadResult } | { state: 'pending'; uploadId: string };

export interface UploadStatus {
  uploadId: string;
  state: ReceivedUpload['state'];
  result: UploadResult | null;
  refusal: UploadRefusal | null;
}

export interface IngestServiceDeps {
  store: IngestRepositories;
  blobs: UploadBlobStore;
  resolver: Pick<RepoResolver, 'org'>;
  detection: Pick<DetectionService, 'evaluate'>;
  settings: FlakySettings;
  logger: Logger;
  /** Asks for a flaky-ingest job for the repository (deduplicated per repository). */
  requestIngest: (job: { repoId: string; uploadId: string }) => Promise<void>;
  /** Links uploads to the merge-queue test runs whose test branch head they tested. */
  links?: TestRunLinks;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

function refusalOf(err: unknown): UploadRefusal | null {
  if (err instanceof BundleError) {
    if (err.code === 'too-large' || err.code === 'entry-too-large') return { kind: 'too_large', code: 'bundle_too_large', message: err.message, details: [] };
    return { kind: 'invalid', code: `bundle_${err.code.replace(/-/g, '_')}`, message: `the bundle cannot be read: ${err.message}`, details: [] };
  }
  if (err instanceof AppError && (err.kind === 'invalid' || err.kind === 'too_large' || err.kind === 'not_found')) {
    return { kind: err.kind, code: err.code, message: err.message, details: err.details };
  }
  return null;
}

/** The refusal as the error the API answers with. */
export function refusalError(r: UploadRefusal): AppError {
  return new AppError(r.kind, r.code, r.message, r.details);
}

async function* limited(body: AsyncIterable<Uint8Array>, max: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) throw new AppError('too_large', 'bundle_too_large', `bundle exceeds ${max} compressed bytes`);
    yield chunk;
  }
}

export class IngestService {
  private readonly now: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;
  /** API calls of this process waiting for an upload's outcome, woken when this process records it. */
  private readonly waiters = new Map<string, Set<() => void>>();
  constructor(private readonly deps: IngestServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Stores an upload and has it processed; answers with its result when the work ends within
   * `waitMs`, else with its id (the status endpoint tells the rest). Refusals known by then —
   * an upload with no usable report among them — are thrown as the errors they are.
   */
  async ingestUpload(request: UploadRequest, waitMs: number): Promise<IngestAnswer> {
    const uploadId = randomUUID();
    let received: ReceivedUpload;
    try {
      received = request.source === 'native' ? await this.receiveNative(uploadId, request) : await this.receiveBundle(uploadId, request);
      await this.deps.store.received.insert(received);
    } catch (err) {
      await this.deps.blobs.deleteUpload(uploadId);
      if (request.source === 'bundle')
        await this.deps.store.bundleUploads.finish(request.claim.id, { state: 'failed', uploadId: null, error: String((err as Error).message) });
      throw err;
    }
    try {
      await this.deps.requestIngest({ repoId: received.repoId, uploadId });
    } catch (err) {
      // Without a job nothing would process it: it is refused as a whole, and the client retries.
      await this.deps.store.received.finish(uploadId, {
        ok: false,
        refusal: { kind: 'invalid', code: 'upload_not_queued', message: (err as Error).message, details: [] },
      });
      await this.deps.blobs.deleteUpload(uploadId);
      throw err;
    }
    return this.awaitOutcome(uploadId, waitMs);
  }

  /** The state of an upload of this organisation (404 for any other). */
  async status(orgId: string, uploadId: string): Promise<UploadStatus> {
    const received = await this.deps.store.received.findById(uploadId);
    if (!received || received.orgId !== orgId) throw new AppError('not_found', 'upload_not_found', `no upload ${JSON.stringify(uploadId)}`);
    const outcome = received.outcome;
    return { uploadId, state: received.state, result: outcome?.ok ? outcome.result : null, refusal: outcome && !outcome.ok ? outcome.refusal : null };
  }

  /** Processes every unfinished upload of the repository, oldest first (the flaky-ingest job). */
  async processRepository(repoId: string): Promise<number> {
    let processed = 0;
    for (;;) {
      const next = await this.deps.store.received.takeNext(repoId);
      if (!next) return processed;
      await this.process(next);
      processed++;
    }
  }

  /** Asks again for the processing of uploads waiting too long; returns how many repositories. */
  async requestWaiting(): Promise<number> {
    const waiting = await this.deps.store.received.repositoriesWaitingSince(new Date(this.now().getTime() - LOST_AFTER_MS));
    for (const job of waiting) await this.deps.requestIngest(job);
    return waiting.length;
  }

  private async receiveNative(uploadId: string, request: Extract<UploadRequest, { source: 'native' }>): Promise<ReceivedUpload> {
    const org = await this.deps.resolver.org(request.orgId, request.meta.orgUrlSlug);
    const repo = await this.deps.store.repos.ensure(org.id, request.meta.repo, this.now(), this.initialDetection());
    const reports: string[] = [];
    let codeowners: string | null = null;
    for await (const part of request.parts) {
      if (part.kind === 'report') {
        await this.deps.blobs.put(uploadId, reports.length, part.bytes);
        reports.push(part.name);
      } else {
        codeowners = await readText(part.bytes, MAX_CODEOWNERS_BYTES);
        if (codeowners === null) throw invalid('codeowners_too_large', `the codeowners part is larger than ${MAX_CODEOWNERS_BYTES} bytes`);
      }
    }
    if (reports.length === 0) throw invalid('missing_junit', 'the upload has no junit part', [{ path: '/junit', message: 'is required' }]);
    return this.received(uploadId, org, repo.id, { source: 'native', meta: request.meta, reports, codeowners });
  }

  private async receiveBundle(uploadId: string, request: Extract<UploadRequest, { source: 'bundle' }>): Promise<ReceivedUpload> {
    const { claim } = request;
    const repo = await this.deps.store.repos.ensure(claim.orgId, claim.repo, this.now(), this.initialDetection());
    await this.deps.blobs.put(uploadId, 0, limited(request.body, this.deps.settings.maxUploadBytes));
    return this.received(uploadId, { id: claim.orgId, slug: claim.orgSlug }, repo.id, { source: 'bundle', bundleUploadId: claim.id, repo: claim.repo });
  }

  private received(uploadId: string, org: { id: string; slug: string }, repoId: string, input: ReceivedUpload['input']): ReceivedUpload {
    const now = this.now();
    return {
      id: uploadId,
      orgId: org.id,
      orgSlug: org.slug,
      repoId,
      receivedAt: now,
      state: 'queued',
      attempts: 0,
      input,
      outcome: null,
      expiresAt: new Date(now.getTime() + this.deps.settings.retentionDays * 86_400_000),
    };
  }

  private initialDetection() {
    return initialDetectionConfig(this.deps.settings.infraFailureThreshold);
  }

  private async awaitOutcome(uploadId: string, waitMs: number): Promise<IngestAnswer> {
    const deadline = Date.now() + waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const received = await this.deps.store.received.findById(uploadId);
      const outcome = received?.outcome;
      if (outcome?.ok) return { state: 'complete', result: outcome.result };
      if (outcome) throw refusalError(outcome.refusal);
      const left = deadline - Date.now();
      if (left <= 0) return { state: 'pending', uploadId };
      await this.settledOrAfter(uploadId, Math.min(pause, left));
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  }

  /** Resolves after `ms`, or earlier when this process records the upload's outcome. */
  private settledOrAfter(uploadId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.waiters.get(uploadId);
      if (!waiters) this.waiters.set(uploadId, (waiters = new Set()));
      const done = () => {
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(uploadId) === waiters) this.waiters.delete(uploadId);
        resolve();
      };
      waiters.add(done);
      void this.sleep(ms).then(done);
    });
  }

  private async process(received: ReceivedUpload): Promise<void> {
    const store = this.deps.store;
    let outcome: UploadOutcome;
    if (received.attempts > MAX_ATTEMPTS) {
      outcome = {
        ok: false,
        refusal: { kind: 'invalid', code: 'upload_unprocessable', message: `processing the upload failed ${MAX_ATTEMPTS} times`, details: [] },
      };
    } else {
      await IngestSession.discardUnfinished(store, received.id);
      let session: IngestSession | null = null;
      try {
        const result = await this.run(received, (s) => (session = s));
        outcome = { ok: true, result };
      } catch (err) {
        const refusal = refusalOf(err);
        // Anything else (the database, a bug) fails the job, which tries again.
        if (!refusal) throw err;
        await (session as IngestSession | null)?.abort(refusal.message);
        outcome = { ok: false, refusal };
      }
    }
    await store.received.finish(received.id, outcome);
    for (const wake of [...(this.waiters.get(received.id) ?? [])]) wake();
    if (received.input.source === 'bundle') {
      await store.bundleUploads.finish(received.input.bundleUploadId, {
        state: outcome.ok ? 'complete' : 'failed',
        uploadId: outcome.ok ? received.id : null,
        error: outcome.ok ? null : outcome.refusal.message,
      });
    }
    await this.deps.blobs.deleteUpload(received.id);
  }

  /** Reads what was received into a session and stores it. */
  private async run(received: ReceivedUpload, opened: (s: IngestSession) => void): Promise<UploadResult> {
    const repo = await this.deps.store.repos.findById(received.repoId);
    if (!repo) throw new AppError('not_found', 'repository_not_found', 'the repository of this upload no longer exists');
    const org = { id: received.orgId, slug: received.orgSlug };
    const links = this.deps.links ?? NO_TEST_RUN_LINKS;
    const begin = async (meta: UploadMeta, source: 'native' | 'bundle') => {
      const link = await links.find(org.id, repo.repo, meta.sha);
      const session = new IngestSession(
        { store: this.deps.store, detection: this.deps.detection, settings: this.deps.settings, logger: this.deps.logger, now: this.now },
        received.id,
        org,
        repo,
        meta,
        source,
        received.receivedAt,
        link,
      );
      opened(session);
      await session.start();
      return session;
    };
    const finish = async (session: IngestSession): Promise<UploadResult> => {
      const result = await session.finish();
      if (session.link) await links.resultsStored(session.link);
      else await links.branchResultsStored(org.id, repo.repo, session.meta.branch, session.meta.sha);
      return result;
    };
    const input = received.input;
    if (input.source === 'native') {
      const session = await begin(input.meta, 'native');
      if (input.codeowners !== null) session.setCodeowners(input.codeowners);
      for (const [i, name] of input.reports.entries()) await session.addReport(name, this.deps.blobs.get(received.id, i));
      return finish(session);
    }
    const max = this.deps.settings.maxReportBytes;
    const bundle = await openBundle(this.deps.blobs.get(received.id, 0), {
      maxCompressedBytes: this.deps.settings.maxUploadBytes,
      maxUncompressedBytes: max,
      maxEntryBytes: max,
    });
    const session = await begin(metaFromBundle(bundle.meta, { orgSlug: received.orgSlug, repo: input.repo }), 'bundle');
    let skippedInternal = 0;
    for await (const file of bundle.files) {
      if (file.kind === 'junit') {
        await session.addReport(file.originalPath ?? file.path, file.stream);
      } else if (file.kind === 'codeowners') {
        const text = await readText(file.stream, MAX_CODEOWNERS_BYTES);
        if (text === null)
          session.addWarning({ level: 'warning', code: 'codeowners-too-large', message: `CODEOWNERS over ${MAX_CODEOWNERS_BYTES} bytes ignored` });
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
    return finish(session);
  }
}
