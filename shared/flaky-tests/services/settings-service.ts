// Repository settings of the flaky-tests pipeline: detection configuration, quarantine switches
// and the ticket template. Changes are compare-and-set with an audit entry; a changed detection
// configuration makes every test of the repository due for re-evaluation on the next read.
import type { RepoRef } from '../../platform/repo-ref.js';
import { invalid } from '../../platform/errors.js';
import { CAS_LOST, retryCompareAndSet } from '../../platform/compare-and-set.js';
import {
  initialDetectionConfig,
  isValidTicketTemplate,
  validateDetectionConfig,
  DEFAULT_QUARANTINE_SETTINGS,
  type DetectionConfig,
  type QuarantineSettings,
} from '../domain/detection/index.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { SettingsPatch } from '../store/repo-settings-repository.js';
import type { FlakySettings } from './flaky-settings.js';
import type { RepoResolver } from './repo-resolver.js';
import type { DetectionService } from './detection-service.js';
import type { Actor } from '../../platform/accounts/actor.js';
import { requireRole } from '../../platform/accounts/policy.js';
import { auditActorOf, type AuditTrail } from '../../platform/audit/audit-log.js';
import { repoKey } from '../../platform/repo-ref.js';
import { changeAuthor } from './change-author.js';
import type { FlakyRepo } from '../domain/model.js';

export interface RepoSettingsView {
  repo: RepoRef;
  /** False when nothing was uploaded or configured yet (defaults shown). */
  known: boolean;
  quarantine: QuarantineSettings;
  detection: DetectionConfig;
  ticketUrlTemplate: string | null;
  /** The template in effect (the repository's, else FLAKY_TICKET_URL_TEMPLATE). */
  effectiveTicketUrlTemplate: string | null;
  version: number;
  updatedAt: Date | null;
  history: FlakyRepo['history'];
}

export interface DetectionPatch {
  stableBranches?: string[];
  mergeQueuePatterns?: string[];
  passOnRetry?: DetectionConfig['passOnRetry'];
  failureRate?: DetectionConfig['failureRate'];
  failureCount?: DetectionConfig['failureCount'];
  infrastructure?: DetectionConfig['infrastructure'];
}

export interface SettingsUpdate {
  orgUrlSlug: string;
  repo: RepoRef;
  quarantine?: Partial<QuarantineSettings>;
  detection?: DetectionPatch;
  /** null clears the repository's template. */
  ticketUrlTemplate?: string | null;
  reason: string | null;
  /** The person an automation acts for (recorded beside the actor). */
  onBehalfOf?: string;
}

export class SettingsService {
  private readonly now: () => Date;
  constructor(
    private readonly deps: {
      store: FlakyStore;
      resolver: RepoResolver;
      settings: FlakySettings;
      detection: Pick<DetectionService, 'refreshDue'>;
      audit: AuditTrail;
      now?: () => Date;
    },
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  private defaults(): DetectionConfig {
    return initialDetectionConfig(this.deps.settings.infraFailureThreshold);
  }

  private view(repo: RepoRef, found: FlakyRepo | null): RepoSettingsView {
    const template = found?.ticketUrlTemplate ?? null;
    return {
      repo: found?.repo ?? repo,
      known: found !== null,
      quarantine: found?.quarantine ?? { ...DEFAULT_QUARANTINE_SETTINGS },
      detection: found?.detection ?? this.defaults(),
      ticketUrlTemplate: template,
      effectiveTicketUrlTemplate: template ?? this.deps.settings.ticketUrlTemplate,
      version: found?.version ?? 0,
      updatedAt: found?.updatedAt ?? null,
      history: found?.history ?? [],
    };
  }

  async get(orgId: string, q: { orgUrlSlug: string; repo: RepoRef }): Promise<RepoSettingsView> {
    const { repo } = await this.deps.resolver.maybe(orgId, q.orgUrlSlug, q.repo);
    return this.view(q.repo, repo);
  }

  /** Changes quarantine, detection or the ticket template (admin), recorded in the repository's history and the audit trail. */
  async update(actor: Actor, u: SettingsUpdate): Promise<RepoSettingsView> {
    requireRole(actor, 'admin', "changing a repository's flaky-test settings");
    const org = await this.deps.resolver.org(actor.orgId, u.orgUrlSlug);
    if (u.ticketUrlTemplate && !isValidTicketTemplate(u.ticketUrlTemplate)) {
      throw invalid('invalid_ticket_url_template', 'ticket_url_template must be an http(s) URL containing {ticket}', [
        { path: '/ticket_url_template', message: 'must be an http(s) URL containing {ticket}' },
      ]);
    }
    let changed: string | null = null;
    const view = await retryCompareAndSet("the repository's settings", async () => {
      const now = this.now();
      const current = await this.deps.store.repos.ensure(org.id, u.repo, now, this.defaults());
      const patch: SettingsPatch = {};
      const changes: string[] = [];
      if (u.quarantine) {
        patch.quarantine = { ...current.quarantine, ...u.quarantine };
        changes.push(
          `quarantine: enabled=${patch.quarantine.enabled}, auto_quarantine=${patch.quarantine.autoQuarantine}, release_after_clean_days=${patch.quarantine.releaseAfterCleanDays}`,
        );
      }
      if (u.detection) {
        const next: DetectionConfig = { ...current.detection, ...u.detection };
        const problems = validateDetectionConfig(next);
        if (problems.length > 0) {
          throw invalid(
            'invalid_detection_config',
            `the detection configuration is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
            problems.map((p) => ({ path: `/detection${p.path}`, message: p.message })),
          );
        }
        patch.detection = next;
        changes.push(`detection: ${Object.keys(u.detection).join(', ')}`);
      }
      if (u.ticketUrlTemplate !== undefined) {
        patch.ticketUrlTemplate = u.ticketUrlTemplate;
        changes.push(`ticket_url_template: ${u.ticketUrlTemplate ?? '(default)'}`);
      }
      if (changes.length === 0) return this.view(u.repo, current);
      const updated = await this.deps.store.repos.update(current.id, current.version, patch, {
        at: now,
        actor: changeAuthor(actor, u.onBehalfOf),
        change: changes.join('; '),
        reason: u.reason,
      });
      if (!updated) return CAS_LOST;
      changed = changes.join('; ');
      if (patch.detection) {
        // Every test is re-evaluated under the new configuration now, by the write that changed
        // it: reads never write.
        await this.deps.store.tests.markAllDue(updated.id, now);
        await this.deps.store.repos.lowerDueAt(updated.id, now);
        updated.dueAt = now;
        await this.deps.detection.refreshDue(updated, now);
      }
      return this.view(u.repo, updated);
    });
    if (changed !== null) {
      await this.deps.audit.record({
        orgId: actor.orgId,
        actor: auditActorOf(actor),
        action: 'flaky_settings.updated',
        target: repoKey(u.repo),
        detail: { change: changed, ...(u.reason ? { reason: u.reason } : {}), ...(u.onBehalfOf ? { onBehalfOf: u.onBehalfOf } : {}) },
      });
    }
    return view;
  }
}
