// The flaky-tests side, wired: its use cases over its store and the upload blobs, its job
// processors, and its events as event delivery sees them. The composition root gives it the
// platform's accounts and how to reach the merge queue's runs (the TestRunLinks port).
import type { AuditTrail } from '../platform/audit/audit-log.js';
import type { OrgRepository } from '../platform/accounts/org-repository.js';
import type { EventFormat } from '../platform/events/event-types.js';
import type { OutboxSource } from '../platform/events/outbox.js';
import type { Enqueue, ProcessorRegistry } from '../platform/jobs/job-catalogue.js';
import type { Logger } from '../platform/logging.js';
import { flakyTestsEventFormat } from './events/event-format.js';
import type { FlakyTestJobs } from './jobs/flaky-test-jobs.js';
import { flakyTestProcessors } from './jobs/flaky-test-processors.js';
import { createFlakyServices, type FlakyServices } from './services/flaky-services.js';
import type { FlakySettings } from './services/flaky-settings.js';
import type { TestRunLinks } from './services/test-run-links.js';
import type { FlakyStore } from './store/flaky-store.js';
import type { UploadBlobStore } from './store/upload-blob-store.js';

export interface FlakyTestsModule {
  store: FlakyStore;
  services: FlakyServices;
  processors: ProcessorRegistry<FlakyTestJobs>;
  eventFormat: EventFormat;
  /** The documents whose outboxes hold its events. */
  outboxes: OutboxSource[];
}

export interface FlakyTestsModuleDeps {
  store: FlakyStore;
  /** Where raw uploads wait for the flaky-ingest job. */
  blobs: UploadBlobStore;
  orgs: OrgRepository;
  audit: AuditTrail;
  settings: FlakySettings;
  enqueue: Enqueue<FlakyTestJobs>;
  /** The merge queue's test runs that uploads are linked to. */
  links: TestRunLinks;
  logger: Logger;
}

export function createFlakyTestsModule(deps: FlakyTestsModuleDeps): FlakyTestsModule {
  const services = createFlakyServices({
    store: deps.store,
    blobs: deps.blobs,
    orgs: deps.orgs,
    audit: deps.audit,
    settings: deps.settings,
    logger: deps.logger,
    requestIngest: (job) => deps.enqueue('flaky-ingest', job),
    links: deps.links,
  });
  return {
    store: deps.store,
    services,
    processors: flakyTestProcessors({ ...services, logger: deps.logger }),
    eventFormat: flakyTestsEventFormat,
    outboxes: [deps.store.tests.outbox],
  };
}
