// The flaky-tests job processors: each receives only the services its job uses.
import type { JobProcessor, ProcessorRegistry } from '../../platform/jobs/job-catalogue.js';
import type { Logger } from '../../platform/logging.js';
import type { DetectionService } from '../services/detection-service.js';
import type { IngestService } from '../services/ingest-service.js';
import type { QuarantineService } from '../services/quarantine-service.js';
import type { FlakyTestJobs } from './flaky-test-jobs.js';

type Processor<K extends keyof FlakyTestJobs> = JobProcessor<FlakyTestJobs, K>;

/** flaky-ingest: process a repository's received uploads (parse, store test case runs, classify). */
export const flakyIngestProcessor =
  (ingest: Pick<IngestService, 'processRepository'>, logger: Logger): Processor<'flaky-ingest'> =>
  async (job) => {
    const processed = await ingest.processRepository(job.data.repoId);
    logger.debug({ repoId: job.data.repoId, uploadId: job.data.uploadId, processed }, 'flaky uploads processed');
  };

/**
 * flaky-refresh (periodic): apply the status changes time alone brings (and the quarantine
 * overrides that expired, the releases after clean days), and ask again for the processing of
 * uploads a crashed process left waiting without a job.
 */
export const flakyRefreshProcessor =
  (
    deps: {
      detection: Pick<DetectionService, 'refreshAllDue'>;
      ingest: Pick<IngestService, 'requestWaiting'>;
      quarantine: Pick<QuarantineService, 'applyTimeRules'>;
    },
    logger: Logger,
  ): Processor<'flaky-refresh'> =>
  async () => {
    const changed = await deps.detection.refreshAllDue(new Date());
    const waiting = await deps.ingest.requestWaiting();
    const quarantine = await deps.quarantine.applyTimeRules(new Date());
    if (changed > 0 || waiting > 0) logger.debug({ changed, waiting }, 'flaky refresh');
    if (quarantine.expired + quarantine.released + quarantine.requarantined > 0) logger.info(quarantine, 'quarantine changed with time');
  };

export function flakyTestProcessors(deps: {
  ingest: IngestService;
  detection: DetectionService;
  quarantine: QuarantineService;
  logger: Logger;
}): ProcessorRegistry<FlakyTestJobs> {
  return {
    'flaky-ingest': flakyIngestProcessor(deps.ingest, deps.logger),
    'flaky-refresh': flakyRefreshProcessor(deps, deps.logger),
  };
}
