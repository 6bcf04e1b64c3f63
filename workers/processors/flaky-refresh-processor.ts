// flaky-refresh (periodic): apply the status changes time alone brings, and ask again for the
// processing of uploads a crashed process left waiting without a job.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function flakyRefreshProcessor(ctx: ServiceContext): JobProcessor<'flaky-refresh'> {
  return async () => {
    const flaky = ctx.services.flaky;
    const changed = await flaky.detection.refreshAllDue(new Date());
    const waiting = await flaky.ingest.requestWaiting();
    if (changed > 0 || waiting > 0) ctx.logger.debug({ changed, waiting }, 'flaky refresh');
  };
}
