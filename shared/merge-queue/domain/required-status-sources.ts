// Which statuses a new test run waits for (merge-queue-behaviour §1.5): the queue's own list
// (merge_instance), else `merge.required_statuses` of .trunk/trunk.yaml at the target head
// (trunk_config), else the forge's branch protection (repo_provider_branch_protection).
import type { RequiredStatusesSource } from './model.js';

export type TrunkConfigStatuses = { kind: 'absent' } | { kind: 'none' } | { kind: 'statuses'; statuses: string[] } | { kind: 'invalid'; message: string };

export interface ResolvedRequiredStatuses {
  contexts: string[];
  source: RequiredStatusesSource | null;
  /** Set when .trunk/trunk.yaml exists but cannot be used: runs fail with a config error. */
  configError: string | null;
}

export function resolveRequiredStatuses(
  queueOverride: readonly string[] | null,
  trunkConfig: TrunkConfigStatuses,
  branchProtection: readonly string[] | null,
): ResolvedRequiredStatuses {
  if (queueOverride && queueOverride.length > 0) {
    return { contexts: [...queueOverride], source: 'merge_instance', configError: null };
  }
  if (trunkConfig.kind === 'invalid') return { contexts: [], source: null, configError: trunkConfig.message };
  if (trunkConfig.kind === 'statuses') return { contexts: [...trunkConfig.statuses], source: 'trunk_config', configError: null };
  if (branchProtection && branchProtection.length > 0) {
    return { contexts: [...branchProtection], source: 'repo_provider_branch_protection', configError: null };
  }
  return { contexts: [], source: null, configError: null };
}
