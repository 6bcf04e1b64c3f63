// The merge queue's events as event delivery sees them (EventFormat): their names, their payload
// rendered when published from what the event's ids name now, and their Slack line. A testing
// event waits while its run is being built, so that it names the test branch's head; a run that
// ended before its branch existed is announced without one. A pull request's failure carries the
// verdict on it, and its pending failure the provisional verdict on the run it waits on
// (docs/verdicts.md).
import type { EventFormat, Rendered, StoredEvent } from '../../platform/events/event-types.js';
import type { Logger } from '../../platform/logging.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { MERGE_QUEUE_EVENT_TYPES, type MergeQueueEventSubject } from './event-types.js';
import { renderPayload } from './event-payloads.js';
import { mergeQueueSlackText } from './slack-text.js';
import type { VerdictService } from '../services/verdict-service.js';

/** Events whose payload carries the test branch's head: published once the branch is built. */
const NEEDS_TEST_BRANCH_HEAD: ReadonlySet<string> = new Set(['pull_request.testing', 'pull_request_batch.testing']);

export function mergeQueueEventFormat(deps: {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries' | 'testRuns'>;
  orgs: Pick<OrgRepository, 'findById'>;
  /** Base URL of links (PUBLIC_URL). */
  baseUrl: string;
  logger: Logger;
  verdicts: Pick<VerdictService, 'of' | 'ofRun'>;
}): EventFormat {
  const { store } = deps;
  return {
    types: MERGE_QUEUE_EVENT_TYPES,
    slackText: mergeQueueSlackText,
    async render(event: StoredEvent, mayWait: boolean): Promise<Rendered> {
      const subject = event.subject as MergeQueueEventSubject;
      const queue = subject.queueId ? await store.queues.findById(subject.queueId) : null;
      if (!queue) {
        deps.logger.warn({ eventId: event.id, type: event.type }, 'event not delivered: its queue is gone');
        return null;
      }
      const org = await deps.orgs.findById(queue.orgId);
      const entry = subject.entryId ? await store.entries.findById(subject.entryId) : null;
      const run = subject.runId ? await store.testRuns.findById(subject.runId) : null;
      if (mayWait && run && NEEDS_TEST_BRANCH_HEAD.has(event.type) && run.sha === null && run.status === 'in_progress') return 'wait';
      const runPrNumbers = run ? (await store.entries.findByIds(run.entryIds)).map((e) => e.prNumber).sort((a, b) => a - b) : [];
      const verdict = !entry
        ? null
        : event.type === 'pull_request.failed'
          ? await deps.verdicts.of(queue, entry)
          : event.type === 'pull_request.pending_failure' && run
            ? await deps.verdicts.ofRun(queue, entry, run)
            : null;
      return renderPayload(event, { queue, entry, run, runPrNumbers, verdict, baseUrl: deps.baseUrl, orgSlug: org?.slug ?? queue.orgId });
    },
  };
}
