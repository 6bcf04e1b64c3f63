// Reads `.trunk/trunk.yaml`: `merge.required_statuses`, the second source of required statuses
// (after the queue's own override, before branch protection), and `merge.schedule`, the merge
// windows of a queue that has none of its own, and `merge.lanes`, lanes computed from the paths a
// pull request changes. The results keep apart the cases the engine treats
// differently: no file, a file without the setting (fall through to the next source) and a file
// that cannot be used (a run fails with "config parsing failure"; a schedule is not applied).
import { parseDocument } from 'yaml';
import type { MergeSchedule } from './merge-schedule.js';
import { readSchedule } from './schedule-input.js';
import { readPathLanes, type PathLanes } from './path-lanes.js';

export const TRUNK_CONFIG_PATH = '.trunk/trunk.yaml';

/** Trunk's configuration files declare this version; anything else is "config bad version". */
const SUPPORTED_VERSION = '0.1';
const MAX_STATUSES = 200;
const MAX_STATUS_LENGTH = 255;

export type TrunkConfigInvalidReason = 'parse_error' | 'bad_version' | 'bad_required_statuses';

export type TrunkRequiredStatuses =
  /** There is no `.trunk/trunk.yaml` at that commit. */
  | { kind: 'absent' }
  /** The file is fine but lists no required statuses (missing `merge`, missing or empty list). */
  | { kind: 'none' }
  | { kind: 'statuses'; statuses: string[] }
  | { kind: 'invalid'; reason: TrunkConfigInvalidReason; message: string };

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The file's `merge` mapping (null when it has none), or why the file cannot be used. */
type TrunkMerge =
  { kind: 'absent' } | { kind: 'merge'; merge: Record<string, unknown> | null } | { kind: 'invalid'; reason: TrunkConfigInvalidReason; message: string };

function readTrunkMerge(text: string | null): TrunkMerge {
  if (text === null) return { kind: 'absent' };
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return { kind: 'invalid', reason: 'parse_error', message: `${TRUNK_CONFIG_PATH} is not valid YAML: ${doc.errors[0]?.message ?? 'unknown error'}` };
  }
  let root: unknown;
  try {
    // Aliases are capped so a hostile file cannot expand into gigabytes ("billion laughs").
    root = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { kind: 'invalid', reason: 'parse_error', message: `${TRUNK_CONFIG_PATH} cannot be read: ${(err as Error).message}` };
  }
  // An empty file is a valid (if useless) configuration.
  if (root === null || root === undefined) return { kind: 'merge', merge: null };
  if (!isMapping(root)) return { kind: 'invalid', reason: 'parse_error', message: `${TRUNK_CONFIG_PATH} must be a mapping at the top level` };

  const version = root.version;
  // YAML reads `version: 0.1` as the number 0.1; quoted it is the string.
  if (version !== undefined && version !== null && String(version) !== SUPPORTED_VERSION) {
    return { kind: 'invalid', reason: 'bad_version', message: `${TRUNK_CONFIG_PATH} has version ${String(version)}; only ${SUPPORTED_VERSION} is supported` };
  }
  const merge = root.merge;
  if (merge === undefined || merge === null) return { kind: 'merge', merge: null };
  if (!isMapping(merge)) return { kind: 'invalid', reason: 'bad_required_statuses', message: '`merge` must be a mapping' };
  return { kind: 'merge', merge };
}

/**
 * @param text the file's content, or null when the file does not exist
 */
export function parseTrunkRequiredStatuses(text: string | null): TrunkRequiredStatuses {
  const read = readTrunkMerge(text);
  if (read.kind !== 'merge') return read;
  const merge = read.merge;
  if (merge === null) return { kind: 'none' };
  const list = merge.required_statuses;
  if (list === undefined || list === null) return { kind: 'none' };
  if (!Array.isArray(list)) return { kind: 'invalid', reason: 'bad_required_statuses', message: '`merge.required_statuses` must be a list of status names' };
  if (list.length > MAX_STATUSES) {
    return { kind: 'invalid', reason: 'bad_required_statuses', message: `\`merge.required_statuses\` lists more than ${MAX_STATUSES} statuses` };
  }
  const statuses: string[] = [];
  for (const [i, item] of list.entries()) {
    // Names must match status contexts exactly, so nothing is coerced: `- 123` is an error, not "123".
    if (typeof item !== 'string' || item.trim() === '' || item.length > MAX_STATUS_LENGTH) {
      return {
        kind: 'invalid',
        reason: 'bad_required_statuses',
        message: `\`merge.required_statuses[${i}]\` must be a non-empty string of at most ${MAX_STATUS_LENGTH} characters`,
      };
    }
    if (!statuses.includes(item)) statuses.push(item);
  }
  return statuses.length === 0 ? { kind: 'none' } : { kind: 'statuses', statuses };
}

/** Anything that can read a file at a commit (every GitProvider can). */
export interface FileReader<R> {
  readFile(repo: R, sha: string, path: string): Promise<string | null>;
}

type Problems = { path: string; message: string }[];

/** `merge.<key>` of the file, checked by `read`: absent (no file), none, its value, or why it cannot be used. */
function trunkSetting<T>(
  text: string | null,
  key: 'schedule' | 'lanes',
  read: (value: unknown) => { ok: true; value: T } | { ok: false; problems: Problems },
): { kind: 'absent' } | { kind: 'none' } | { kind: 'value'; value: T } | { kind: 'invalid'; message: string } {
  const file = readTrunkMerge(text);
  if (file.kind === 'absent') return file;
  if (file.kind === 'invalid') return { kind: 'invalid', message: file.message };
  const value = file.merge?.[key];
  if (value === undefined || value === null) return { kind: 'none' };
  const checked = read(value);
  if (checked.ok) return { kind: 'value', value: checked.value };
  return {
    kind: 'invalid',
    message: `\`merge.${key}\` of ${TRUNK_CONFIG_PATH} cannot be used: ${checked.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
  };
}

/** `merge.schedule` of `.trunk/trunk.yaml` (docs/merge-windows.md): absent, none, a schedule, or why it cannot be used. */
export type TrunkSchedule = { kind: 'absent' } | { kind: 'none' } | { kind: 'schedule'; schedule: MergeSchedule } | { kind: 'invalid'; message: string };

export function parseTrunkSchedule(text: string | null): TrunkSchedule {
  const setting = trunkSetting(text, 'schedule', (v) => {
    const r = readSchedule(v);
    return r.ok ? { ok: true, value: r.schedule } : r;
  });
  return setting.kind === 'value' ? { kind: 'schedule', schedule: setting.value } : setting;
}

/** `merge.lanes` of `.trunk/trunk.yaml` (docs/lanes.md): absent, none, lanes from paths, or why they cannot be used. */
export type TrunkLanes = { kind: 'absent' } | { kind: 'none' } | { kind: 'lanes'; lanes: PathLanes } | { kind: 'invalid'; message: string };

export function parseTrunkLanes(text: string | null): TrunkLanes {
  const setting = trunkSetting(text, 'lanes', (v) => {
    const r = readPathLanes(v);
    return r.ok ? { ok: true, value: r.lanes } : r;
  });
  return setting.kind === 'value' ? { kind: 'lanes', lanes: setting.value } : setting;
}

/** Reads and parses `.trunk/trunk.yaml` at a commit (the target head a run starts from). */
export async function readTrunkRequiredStatuses<R>(reader: FileReader<R>, repo: R, sha: string): Promise<TrunkRequiredStatuses> {
  return parseTrunkRequiredStatuses(await reader.readFile(repo, sha, TRUNK_CONFIG_PATH));
}
