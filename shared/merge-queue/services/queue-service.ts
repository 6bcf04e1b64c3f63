// Use cases of queue administration (spec §4.1): create, read, update and delete merge queues.
// Changes need the admin role and are recorded in the audit trail with their actor.
import type { Entry, Queue, QueueMode, QueueSettings, QueueState } from '../domain/model.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';
import type { Actor } from '../../platform/accounts/actor.js';
import { requireCapability } from '../../platform/accounts/policy.js';
import { auditActorOf, type AuditTrail } from '../../platform/audit/audit-log.js';
import { IN_FLIGHT } from '../domain/planner/entry-states.js';
import { conflict, invalid, notFound, repositoryNotFound } from '../../platform/errors.js';
import { CAS_LOST, retryCompareAndSet } from '../../platform/compare-and-set.js';
import type { MergeQueueRepositories } from '../store/store.js';
import { QueueExistsError, type QueuePatch } from '../store/queue-repository.js';
import type { ProviderRegistry } from './provider.js';
import type { Logger } from '../../platform/logging.js';
import { scheduleProblems } from '../domain/merge-schedule.js';
import { objectiveProblems } from '../domain/objectives.js';
import { digestProblems } from '../domain/digest.js';

export type QueueSettingsPatch = Partial<Omit<QueueSettings, 'requiredStatuses'>> & {
  state?: Exclude<QueueState, 'switching_modes'>;
  requiredStatuses?: string[];
  deleteRequiredStatuses?: boolean;
};

export interface QueueServiceDeps {
  store: Pick<MergeQueueRepositories, 'queues' | 'entries'>;
  providers: ProviderRegistry;
  logger: Logger;
  audit: AuditTrail;
  /** Asks the engine to plan this queue again (state changed). */
  requestPlan: (queueId: string, why: string) => Promise<void>;
  /**
   * Whether `orgId` may have queues on the repository (a GitHub repository belongs to the first
   * organisation that creates a queue on it); absent: every organisation may.
   */
  claimRepository?: (orgId: string, repo: RepoRef) => Promise<boolean>;
}

const QUEUE = 'the queue';

/** What the domain found wrong with a setting the wire shape admitted, as a 400 naming each path under the setting. */
function refuseProblems(setting: 'schedule' | 'objectives' | 'digest', problems: readonly { path: string; message: string }[]): void {
  if (problems.length === 0) return;
  throw invalid(
    'invalid_request',
    `the ${setting} cannot be used: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    problems.map((p) => ({ path: `/${setting}${p.path}`, message: p.message })),
  );
}

/** How the audit trail names a queue. */
const queueTarget = (repo: RepoRef, branch: string) => `${repoKey(repo)}:${branch}`;

export class QueueService {
  constructor(private readonly deps: QueueServiceDeps) {}

  /** The queue of `orgId` for repo+branch; 404 when absent (also for another organisation's queue). */
  async get(orgId: string, repo: RepoRef, branch: string): Promise<Queue> {
    const queue = await this.deps.store.queues.find(orgId, repo, branch);
    if (!queue) throw notFound('queue_not_found', `no merge queue for branch "${branch}" of ${repo.host}/${repo.owner}/${repo.name}`);
    return queue;
  }

  async create(actor: Actor, repo: RepoRef, branch: string, init: { mode?: QueueMode; concurrency?: number }): Promise<Queue> {
    requireCapability(actor, 'update_settings', 'creating a queue');
    const { orgId } = actor;
    const provider = await this.deps.providers.providerFor(repo);
    if (!provider) throw repositoryNotFound(repo);
    const head = await provider.branchHead(repo, branch);
    if (head === null) throw notFound('branch_not_found', `branch "${branch}" does not exist in ${repo.owner}/${repo.name}`);
    if (this.deps.claimRepository && !(await this.deps.claimRepository(orgId, repo))) throw repositoryNotFound(repo);
    try {
      const queue = await this.deps.store.queues.create(orgId, repo, branch, {
        mode: init.mode ?? 'single',
        concurrency: init.concurrency ?? 1,
        targetSha: head,
      });
      this.deps.logger.info({ queueId: queue.id, repo, branch }, 'queue created');
      await this.deps.audit.record({ orgId, actor: auditActorOf(actor), action: 'queue.created', target: queueTarget(repo, branch), detail: init });
      return queue;
    } catch (err) {
      if (err instanceof QueueExistsError) {
        throw conflict('queue_exists', `A merge queue already exists for branch "${branch}" in this repository`);
      }
      throw err;
    }
  }

  async listEntries(queue: Queue): Promise<Entry[]> {
    return this.deps.store.entries.listActive(queue.id);
  }

  async update(actor: Actor, repo: RepoRef, branch: string, patch: QueueSettingsPatch): Promise<Queue> {
    requireCapability(actor, 'update_settings', 'changing a queue');
    const updated = await retryCompareAndSet(QUEUE, async () => {
      const queue = await this.get(actor.orgId, repo, branch);
      const { set, changes } = await this.computeUpdate(queue, patch);
      if (changes.length === 0) return queue;
      const updated = await this.deps.store.queues.update(queue.id, queue.version, set, changes.join(', '));
      if (!updated) return CAS_LOST;
      this.deps.logger.info({ queueId: queue.id, changes }, 'queue updated');
      await this.deps.requestPlan(queue.id, 'queue settings changed');
      return updated;
    });
    await this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action: 'queue.updated', target: queueTarget(repo, branch), detail: patch });
    return updated;
  }

  private async computeUpdate(queue: Queue, patch: QueueSettingsPatch): Promise<{ set: QueuePatch; changes: string[] }> {
    const { state, mode, requiredStatuses, deleteRequiredStatuses, ...settings } = patch;
    if (deleteRequiredStatuses && requiredStatuses !== undefined) {
      throw invalid('invalid_request', 'requiredStatuses and deleteRequiredStatuses cannot be combined', [
        { path: '/deleteRequiredStatuses', message: 'cannot be combined with requiredStatuses' },
      ]);
    }
    const switching = queue.state === 'switching_modes';
    if (switching && ((mode !== undefined && mode !== queue.pendingMode) || state !== undefined)) {
      throw conflict(
        'mode_change_in_progress',
        `the queue is switching to ${queue.pendingMode} mode; mode and state can change again once the switch completes`,
      );
    }
    if (settings.schedule) refuseProblems('schedule', scheduleProblems(settings.schedule));
    if (settings.objectives) refuseProblems('objectives', objectiveProblems(settings.objectives));
    if (settings.digest) refuseProblems('digest', digestProblems(settings.digest));
    const set: QueuePatch = {};
    const changes: string[] = [];
    for (const [key, value] of Object.entries(settings) as [keyof QueueSettings, unknown][]) {
      if (value === undefined || JSON.stringify(queue[key]) === JSON.stringify(value)) continue;
      (set as Record<string, unknown>)[key] = value;
      changes.push(`${key}=${JSON.stringify(value)}`);
    }
    // The compatible API ignored an empty list; only deleteRequiredStatuses reverts to trunk.yaml.
    if (requiredStatuses !== undefined && requiredStatuses.length > 0) {
      const unique = [...new Set(requiredStatuses)];
      if (JSON.stringify(unique) !== JSON.stringify(queue.requiredStatuses)) {
        set.requiredStatuses = unique;
        changes.push(`requiredStatuses=${JSON.stringify(unique)}`);
      }
    }
    if (deleteRequiredStatuses && queue.requiredStatuses !== null) {
      set.requiredStatuses = null;
      changes.push('requiredStatuses deleted');
    }
    if (state !== undefined && state !== queue.state) {
      set.state = state;
      changes.push(`state=${state}`);
    }
    if (mode !== undefined && mode !== queue.mode && !switching) {
      const inFlight = await this.deps.store.entries.countInStates(queue.id, IN_FLIGHT);
      if (inFlight > 0) {
        set.state = 'switching_modes';
        set.pendingMode = mode;
        changes.push(`switching to mode=${mode} (${inFlight} pull requests in flight)`);
      } else {
        set.mode = mode;
        changes.push(`mode=${mode}`);
      }
    }
    return { set, changes };
  }

  async delete(actor: Actor, repo: RepoRef, branch: string): Promise<void> {
    requireCapability(actor, 'update_settings', 'deleting a queue');
    await retryCompareAndSet(QUEUE, async () => {
      const queue = await this.get(actor.orgId, repo, branch);
      const active = await this.deps.store.entries.countActive(queue.id);
      if (active > 0) {
        throw invalid(
          'queue_not_empty',
          `the queue still holds ${active} pull request(s) that are not merged, failed or cancelled; cancel them or drain the queue first`,
        );
      }
      if (!(await this.deps.store.queues.delete(queue.id, queue.version))) return CAS_LOST;
      this.deps.logger.info({ queueId: queue.id }, 'queue deleted');
    });
    await this.deps.audit.record({ orgId: actor.orgId, actor: auditActorOf(actor), action: 'queue.deleted', target: queueTarget(repo, branch), detail: {} });
  }
}
