// The flaky-tests API (wire-contract §3, spec §4.3) and this service's settings and quarantine
// endpoints (docs/flaky-tests.md). Each route parses, calls one service function, serializes.
import type { OperationRoutes } from '../../routing/operation-router.js';
import type { Context } from 'koa';
import { actorOf } from '../../middleware/auth.js';
import type { FlakyServices } from '../../../shared/flaky-tests/services/flaky-services.js';
import { parseLinkTicket, parseListFailing, parseListQuarantined, parseListUnhealthy, parseTestDetails } from '../schemas/list-schemas.js';
import { parseGetOverride, parseGetSettings, parseSetOverride, parseUpdateSettings } from '../schemas/settings-schemas.js';
import { serializePage, serializeQuarantined, serializeTest, type LinkContext } from '../serializers/tests.js';
import { serializeOverride, serializeSettings } from '../serializers/settings.js';
import { toDetectionPatch } from '../serializers/detection-body.js';

/** Links point at PUBLIC_URL when configured, else at the scheme and host the client used. */
export function baseUrlOf(ctx: Context, publicUrl: string | null): string {
  // Not ctx.origin: since Koa 3 that is the request's Origin header.
  return publicUrl ?? `${ctx.protocol}://${ctx.host}`;
}

export function registerFlakyRoutes(
  routes: OperationRoutes,
  services: Pick<FlakyServices, 'settings' | 'queries' | 'quarantine' | 'tickets' | 'repoSettings'>,
): void {
  const publicUrl = services.settings.publicUrl;
  const links = (ctx: Context, orgSlug: string): LinkContext => ({ baseUrl: baseUrlOf(ctx, publicUrl), orgSlug: orgSlug.trim() });

  routes.handle('listFailingTests', async (ctx) => {
    const b = parseListFailing(ctx.request.body);
    const r = await services.queries.listFailing(actorOf(ctx.state).orgId, {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      start: new Date(b.start_time),
      end: new Date(b.end_time),
      pageSize: b.page_query.page_size,
      pageToken: b.page_query.page_token,
    });
    ctx.body = { tests: r.items.map((v) => serializeTest(v, links(ctx, b.org_url_slug), true)), page: serializePage(r.page) };
  });

  routes.handle('listUnhealthyTests', async (ctx) => {
    const b = parseListUnhealthy(ctx.request.body);
    const r = await services.queries.listUnhealthy(actorOf(ctx.state).orgId, {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      status: b.status,
      pageSize: b.page_query.page_size,
      pageToken: b.page_query.page_token,
    });
    ctx.body = { tests: r.items.map((v) => serializeTest(v, links(ctx, b.org_url_slug), false)), page: serializePage(r.page) };
  });

  routes.handle('listQuarantinedTests', async (ctx) => {
    const b = parseListQuarantined(ctx.request.body);
    const r = await services.queries.listQuarantined(actorOf(ctx.state).orgId, {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      pageSize: b.page_query.page_size,
      pageToken: b.page_query.page_token,
    });
    ctx.body = { quarantined_tests: r.items.map(serializeQuarantined), page: serializePage(r.page) };
  });

  routes.handle('getTestDetails', async (ctx) => {
    const b = parseTestDetails(ctx.request.body);
    const v = await services.queries.details(actorOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo, testId: b.test_id });
    ctx.body = { test: serializeTest(v, links(ctx, b.org_url_slug), true) };
  });

  routes.handle('linkTicketToTestCase', async (ctx) => {
    const b = parseLinkTicket(ctx.request.body);
    await services.tickets.link(actorOf(ctx.state), {
      ...(b.org_url_slug !== undefined ? { orgUrlSlug: b.org_url_slug } : {}),
      repo: b.repo,
      testCaseId: b.test_case_id,
      externalTicketId: b.external_ticket_id,
    });
    ctx.body = {};
  });

  routes.handle('getRepoSettings', async (ctx) => {
    const b = parseGetSettings(ctx.request.body);
    ctx.body = serializeSettings(await services.repoSettings.get(actorOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo }));
  });

  routes.handle('updateRepoSettings', async (ctx) => {
    const b = parseUpdateSettings(ctx.request.body);
    const view = await services.repoSettings.update(actorOf(ctx.state), {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      quarantine: b.quarantine
        ? {
            ...(b.quarantine.enabled !== undefined ? { enabled: b.quarantine.enabled } : {}),
            ...(b.quarantine.auto_quarantine !== undefined ? { autoQuarantine: b.quarantine.auto_quarantine } : {}),
            ...(b.quarantine.release_after_clean_days !== undefined ? { releaseAfterCleanDays: b.quarantine.release_after_clean_days } : {}),
          }
        : undefined,
      detection: b.detection ? toDetectionPatch(b.detection) : undefined,
      ticketUrlTemplate: b.ticket_url_template === undefined ? undefined : b.ticket_url_template === '' ? null : b.ticket_url_template,
      reason: b.reason ?? null,
      ...(b.actor ? { onBehalfOf: b.actor } : {}),
    });
    ctx.body = serializeSettings(view);
  });

  routes.handle('getQuarantineOverride', async (ctx) => {
    const b = parseGetOverride(ctx.request.body);
    ctx.body = serializeOverride(
      await services.quarantine.getOverride(actorOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo, testId: b.test_id }),
    );
  });

  routes.handle('setQuarantineOverride', async (ctx) => {
    const b = parseSetOverride(ctx.request.body);
    const override = b.override === 'always_quarantine' ? 'always' : b.override === 'never_quarantine' ? 'never' : null;
    const view = await services.quarantine.setOverride(actorOf(ctx.state), {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      testId: b.test_id,
      override,
      reason: b.reason,
      ...(b.actor ? { onBehalfOf: b.actor } : {}),
      expiresAt: b.expires_at ? new Date(b.expires_at) : null,
    });
    ctx.body = serializeOverride(view);
  });
}
