// A `merge.lanes` in .trunk/trunk.yaml that the engine cannot use (docs/lanes.md). Without usable
// lanes a parallel queue needs uploaded impacted targets, so pull requests that upload none wait
// in not_ready: the queue records the problem when a planning pass reads the file at the target
// head, and getQueue warns from what is stored, without reading git.
import type { LanesProblem } from './model.js';
import type { QueueWarning } from './status-watch.js';

/**
 * The problem to record after reading the file at `sha` (`message` null: usable lanes, no lanes, or
 * not a parallel queue). Answers `current` itself when nothing is to be written.
 */
export function lanesProblemAfter(current: LanesProblem | null, read: { sha: string; message: string | null }, now: Date): LanesProblem | null {
  if (read.message === null) return null;
  if (current?.message !== read.message) return { sha: read.sha, message: read.message, since: now };
  return current.sha === read.sha ? current : { ...current, sha: read.sha };
}

export function lanesProblemHistory(next: LanesProblem | null, headSha: string): string {
  return next ? `merge.lanes unusable at ${headSha.slice(0, 12)}: ${next.message}` : `merge.lanes usable or absent at ${headSha.slice(0, 12)}`;
}

export function lanesProblemWarning(problem: LanesProblem): QueueWarning {
  return {
    code: 'lanes_config_invalid',
    // The parser's message names the file and the setting (or says the file is not YAML at all).
    message: `${problem.message} (target branch head ${problem.sha.slice(0, 12)}); until a commit fixes it, pull requests that upload no impacted targets wait as not ready`,
    contexts: [],
    testRunIds: [],
    since: problem.since,
  };
}
