// link-ticket-to-test-case: attaches an issue-tracker ticket to a test; the URL comes from the
// repository's template, else FLAKY_TICKET_URL_TEMPLATE.
import type { RepoRef } from '../../platform/repo-ref.js';
import type { Actor } from '../../platform/accounts/actor.js';
import { requireRole } from '../../platform/accounts/policy.js';
import { changeAuthor } from './change-author.js';
import { invalid, notFound } from '../../platform/errors.js';
import { CAS_LOST, retryCompareAndSet } from '../../platform/compare-and-set.js';
import { ticketUrl } from '../domain/detection/index.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { FlakySettings } from './flaky-settings.js';
import type { RepoResolver } from './repo-resolver.js';
import { caseIdCandidates, type TestCase } from '../domain/model.js';

export class TicketService {
  private readonly now: () => Date;
  constructor(private readonly deps: { store: FlakyStore; resolver: RepoResolver; settings: FlakySettings; now?: () => Date }) {
    this.now = deps.now ?? (() => new Date());
  }

  async link(actor: Actor, q: { orgUrlSlug?: string; repo: RepoRef; testCaseId: string; externalTicketId: string }): Promise<TestCase> {
    requireRole(actor, 'write', 'linking a ticket to a test');
    const { repo } = await this.deps.resolver.existing(actor.orgId, q.orgUrlSlug ?? null, q.repo);
    const url = ticketUrl(q.externalTicketId, repo.ticketUrlTemplate ?? this.deps.settings.ticketUrlTemplate);
    if (!url) {
      throw invalid(
        'ticket_tracker_not_configured',
        'no issue-tracker URL template is configured (FLAKY_TICKET_URL_TEMPLATE or the repository setting ticket_url_template); pass the ticket URL as external_ticket_id instead',
        [{ path: '/external_ticket_id', message: 'cannot be turned into a URL' }],
      );
    }
    return retryCompareAndSet('the test', async () => {
      const test = await this.deps.store.tests.findFirst(caseIdCandidates(repo.id, q.testCaseId));
      if (!test) throw notFound('test_not_found', `no test ${q.testCaseId} in this repository`);
      const updated = await this.deps.store.tests.setTicket(test, {
        externalId: q.externalTicketId.trim(),
        url,
        linkedAt: this.now(),
        actor: changeAuthor(actor, undefined),
      });
      return updated ?? CAS_LOST;
    });
  }
}
