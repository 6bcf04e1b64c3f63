// The merge-queue permissions an API key holds (the hosted v2 API's key scopes), and what each
// takes from a caller that holds a role instead (a v1 token, a person, a forge user, an operator).
// A key holding none reads everything of its organisation and changes nothing.
import { roleAllows, type Role } from './roles.js';

export const MERGE_QUEUE_PERMISSIONS = ['merge_and_cancel', 'set_priority', 'skip_batching', 'direct_to_queue', 'update_settings'] as const;
export type MergeQueuePermission = (typeof MERGE_QUEUE_PERMISSIONS)[number];

export const isMergeQueuePermission = (value: unknown): value is MergeQueuePermission => (MERGE_QUEUE_PERMISSIONS as readonly unknown[]).includes(value);

/** How the hosted product names each permission (its key form and the audit trail show these). */
export const PERMISSION_TITLES: Readonly<Record<MergeQueuePermission, string>> = {
  merge_and_cancel: 'Merge and cancel PRs',
  set_priority: 'Set priority on PRs',
  skip_batching: 'Skip batching',
  direct_to_queue: 'Merge PRs with direct to queue',
  update_settings: 'Update Merge Queue settings',
};

/**
 * What a use case asks of its caller: a permission, or the urgent priority, which preempts runs
 * in flight. A key needs "Set priority" for it; a role needs admin, as it always has on v1.
 */
export type Capability = MergeQueuePermission | 'urgent_priority';

/** The role a role-holding caller needs for each capability: the rules v1 always had. */
export const ROLE_FOR_CAPABILITY: Readonly<Record<Capability, Role>> = {
  merge_and_cancel: 'write',
  set_priority: 'write',
  skip_batching: 'write',
  direct_to_queue: 'admin',
  update_settings: 'admin',
  urgent_priority: 'admin',
};

/** The permission a key needs for each capability. */
export const PERMISSION_FOR_CAPABILITY: Readonly<Record<Capability, MergeQueuePermission>> = {
  merge_and_cancel: 'merge_and_cancel',
  set_priority: 'set_priority',
  skip_batching: 'skip_batching',
  direct_to_queue: 'direct_to_queue',
  update_settings: 'update_settings',
  urgent_priority: 'set_priority',
};

/** The permissions a role amounts to (how a v1 token is shown on v2: docs/decisions.md). */
export const permissionsOfRole = (role: Role): MergeQueuePermission[] => MERGE_QUEUE_PERMISSIONS.filter((p) => roleAllows(role, ROLE_FOR_CAPABILITY[p]));
