// flaky-ingest: process a repository's received uploads (parse, store test case runs, classify).
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function flakyIngestProcessor(ctx: ServiceContext): JobProcessor<'flaky-ingest'> {
  return async (job) => {
    const processed = await ctx.services.flaky.ingest.processRepository(job.data.repoId);
    ctx.logger.debug({ repoId: job.data.repoId, uploadId: job.data.uploadId, processed }, 'flaky uploads processed');
  };
}
