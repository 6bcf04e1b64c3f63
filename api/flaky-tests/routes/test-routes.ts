// The flaky-tests API (wire-contract §3, spec §4.3) and this service's settings and quarantine
// endpoints (docs/flaky-tests.md). Each route parses, calls one service function, serializes.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { auditActorOf, authOf } from '../../middleware/auth.js';
import type { AuditTrail } from '../../../shared/audit/store/audit-log.js';
import { repoKey } from '../../../shared/repo-ref.js';
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

function actorOf(ctx: Context, given: string | undefined): string {
  const token = `token:${authOf(ctx.state).tokenId}`;
  return given ? `${given} (${token})` : token;
}

export function registerFlakyRoutes(router: Router, services: FlakyServices, changes: { audit: AuditTrail }): void {
  const publicUrl = services.settings.publicUrl;
  const links = (ctx: Context, orgSlug: string): LinkContext => ({ baseUrl: baseUrlOf(ctx, publicUrl), orgSlug: orgSlug.trim() });

  router.post('/flaky-tests/list-failing-tests', async (ctx) => {
    const b = parseListFailing(ctx.request.body);
    const r = await services.queries.listFailing(authOf(ctx.state).orgId, {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      start: new Date(b.start_time),
      end: new Date(b.end_time),
      pageSize: b.page_query.page_size,
      pageToken: b.page_query.page_token,
    });
    ctx.body = { tests: r.items.map((v) => serializeTest(v, links(ctx, b.org_url_slug), true)), page: serializePage(r.page) };
  });

  router.post('/flaky-tests/list-unhealthy-tests', async (ctx) => {
    const b = parseListUnhealthy(ctx.request.body);
    const r = await services.queries.listUnhealthy(authOf(ctx.state).orgId, {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      status: b.status,
      pageSize: b.page_query.page_size,
      pageToken: b.page_query.page_token,
    });
    ctx.body = { tests: r.items.map((v) => serializeTest(v, links(ctx, b.org_url_slug), false)), page: serializePage(r.page) };
  });

  router.post('/flaky-tests/list-quarantined-tests', async (ctx) => {
    const b = parseListQuarantined(ctx.request.body);
    const r = await services.queries.listQuarantined(authOf(ctx.state).orgId, {
      orgUrlSlug: b.org_url_slug,
      repo: b.repo,
      pageSize: b.page_query.page_size,
      pageToken: b.page_query.page_token,
    });
    ctx.body = { quarantined_tests: r.items.map(serializeQuarantined), page: serializePage(r.page) };
  });

  router.post('/flaky-tests/get-test-details', async (ctx) => {
    const b = parseTestDetails(ctx.request.body);
    const v = await services.queries.details(authOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo, testId: b.test_id });
    ctx.body = { test: serializeTest(v, links(ctx, b.org_url_slug), true) };
  });

  router.post('/flaky-tests/link-ticket-to-test-case', async (ctx) => {
    const b = parseLinkTicket(ctx.request.body);
    const orgId = authOf(ctx.state).orgId;
    if (b.org_url_slug !== undefined) await services.repoSettings.get(orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo });
    await services.tickets.link(orgId, { repo: b.repo, testCaseId: b.test_case_id, externalTicketId: b.external_ticket_id, actor: actorOf(ctx, undefined) });
    ctx.body = {};
  });

  router.post('/flaky-tests/get-repo-settings', async (ctx) => {
    const b = parseGetSettings(ctx.request.body);
    ctx.body = serializeSettings(await services.repoSettings.get(authOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo }));
  });

  router.post('/flaky-tests/update-repo-settings', async (ctx) => {
    const b = parseUpdateSettings(ctx.request.body);
    const view = await services.repoSettings.update(authOf(ctx.state).orgId, {
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
      actor: actorOf(ctx, b.actor),
    });
    ctx.body = serializeSettings(view);
  });

  router.post('/flaky-tests/get-quarantine-override', async (ctx) => {
    const b = parseGetOverride(ctx.request.body);
    ctx.body = serializeOverride(await services.quarantine.getOverride(authOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo, testId: b.test_id }));
  });

  router.post('/flaky-tests/set-quarantine-override', async (ctx) => {
    const b = parseSetOverride(ctx.request.body);
    const override = b.override === 'always_quarantine' ? 'always' : b.override === 'never_quarantine' ? 'never' : null;
    const { orgId } = authOf(ctx.state);
    const target = { orgUrlSlug: b.org_url_slug, repo: b.repo, testId: b.test_id };
    const expiresAt = b.expires_at ? new Date(b.expires_at) : null;
    const view = await services.quarantine.setOverride(orgId, { ...target, override, reason: b.reason, actor: actorOf(ctx, b.actor), expiresAt });
    await changes.audit.record({
      orgId,
      actor: auditActorOf(ctx.state),
      action: 'quarantine.override_set',
      target: `${repoKey(b.repo)}:${b.test_id}`,
      detail: { override, reason: b.reason, ...(b.actor ? { onBehalfOf: b.actor } : {}), ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) },
    });
    ctx.body = serializeOverride(view);
  });
}
