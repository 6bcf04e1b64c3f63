// Builds the flaky-tests services over one store (the composition root calls this).
import type { Logger } from '../../platform/logging.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import type { AuditTrail } from '../../platform/audit/audit-log.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { UploadBlobStore } from '../store/upload-blob-store.js';
import { BundleUploadService } from './bundle-upload-service.js';
import { DetectionService } from './detection-service.js';
import type { FlakySettings } from './flaky-settings.js';
import { IngestService } from './ingest-service.js';
import { PageTokenCodec } from './page-token.js';
import { QuarantineService } from './quarantine-service.js';
import { RepoResolver } from './repo-resolver.js';
import { SettingsService } from './settings-service.js';
import { TestQueryService } from './test-query-service.js';
import { TicketService } from './ticket-service.js';
import { TestHistoryService } from './test-history-service.js';
import { RunResultsService } from './run-results-service.js';
import type { TestRunLinks } from './test-run-links.js';

export interface FlakyServices {
  settings: FlakySettings;
  ingest: IngestService;
  bundles: BundleUploadService;
  detection: DetectionService;
  queries: TestQueryService;
  quarantine: QuarantineService;
  repoSettings: SettingsService;
  tickets: TicketService;
  history: TestHistoryService;
  runResults: RunResultsService;
}

export interface FlakyServiceDeps {
  store: FlakyStore;
  orgs: OrgRepository;
  /** Where changes of settings and quarantine overrides are recorded with their actor. */
  audit: AuditTrail;
  settings: FlakySettings;
  logger: Logger;
  /** Where raw uploads wait for the flaky-ingest job. */
  blobs: UploadBlobStore;
  /** Enqueues the flaky-ingest job of a repository. */
  requestIngest: (job: { repoId: string; uploadId: string }) => Promise<void>;
  /** Clock (tests move it); defaults to the wall clock. */
  now?: () => Date;
  /** The merge-queue test runs uploads are linked to; none by default. */
  links?: TestRunLinks;
}

export function createFlakyServices(deps: FlakyServiceDeps): FlakyServices {
  const { store, settings, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const resolver = new RepoResolver({ orgs: deps.orgs, store });
  const detection = new DetectionService({ store });
  const tokens = new PageTokenCodec(() => store.secrets.get('page-token-hmac-key'));
  const ingest = new IngestService({
    store,
    blobs: deps.blobs,
    resolver,
    detection,
    settings,
    logger,
    requestIngest: deps.requestIngest,
    now,
    ...(deps.links ? { links: deps.links } : {}),
  });
  const queries = new TestQueryService({ store, resolver, detection, tokens, now });
  return {
    settings,
    ingest,
    bundles: new BundleUploadService({ store, resolver, ingest, settings, now }),
    detection,
    queries,
    quarantine: new QuarantineService({ store, resolver, detection, queries, audit: deps.audit, now }),
    repoSettings: new SettingsService({ store, resolver, settings, detection, audit: deps.audit, now }),
    tickets: new TicketService({ store, resolver, settings, now }),
    history: new TestHistoryService({ store, resolver }),
    runResults: new RunResultsService({ store }),
  };
}
