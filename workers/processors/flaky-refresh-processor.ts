// flaky-refresh (periodic): apply the status changes time alone brings (and the quarantine
// overrides that expired, the releases after clean days), and ask again for the processing of
// uploads a crashed process left waiting without a job.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function flakyRefreshProcessor(ctx: ServiceContext): JobProcessor<'flaky-refresh'> {
  return async () => {
    const flaky = ctx.services.flaky;
    const changed = await flaky.detection.refreshAllDue(new Date());
    const waiting = await flaky.ingest.requestWaiting();
    const quarantine = await flaky.quarantine.applyTimeRules(new Date());
    if (changed > 0 || waiting > 0) ctx.logger.debug({ changed, waiting }, 'flaky refresh');
    if (quarantine.expired + quarantine.released + quarantine.requarantined > 0) ctx.logger.info(quarantine, 'quarantine changed with time');
  };
}
