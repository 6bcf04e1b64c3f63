// Per-repository detection configuration: which monitors run, their thresholds and the branches
// they look at (flaky-tests notes §1.3, monitor model; defaults per notes §6.3). Defaults
// reproduce the legacy rules: inconsistent results on one commit make a test flaky anywhere; a
// failure on the stable branch or in the merge queue (where tests passed before) makes it flaky;
// failing almost every run there makes it broken.
import type { BranchClass } from '../branch-class.js';
import { DEFAULT_STABLE_BRANCHES } from '../branch-class.js';
import type { Classification } from './types.js';

/**
 * Which runs a monitor looks at: a run is in scope when its branch class is listed or its branch
 * name matches one of the patterns (`*` any characters including `/`, `?` one character).
 */
export interface BranchScope {
  branchClasses: BranchClass[];
  branchPatterns: string[];
}

export interface PassOnRetryConfig {
  enabled: boolean;
  /** Days without new evidence after which the monitor resolves (1–15). */
  recoveryDays: number;
  scope: BranchScope;
}

export interface FailureRateMonitorConfig {
  /** Stable key of the monitor within the repository (letters, digits, `-`, `_`). */
  id: string;
  enabled: boolean;
  classification: Classification;
  /** Fraction in (0, 1]: active when the failure rate reaches it. */
  activationThreshold: number;
  /** Fraction ≤ activation: an active monitor resolves when the rate drops below it. */
  resolutionThreshold: number;
  windowHours: number;
  /** Passed + failed runs in the window below which the monitor neither activates nor resolves. */
  minSampleSize: number;
  /** Hours without a passed or failed run after which an active monitor resolves; null: never. */
  staleTimeoutHours: number | null;
  scope: BranchScope;
}

export interface FailureCountMonitorConfig {
  id: string;
  enabled: boolean;
  classification: Classification;
  /** Failures within the window that activate the monitor. */
  failureThreshold: number;
  windowHours: number;
  /** Hours after the last failure at which an active monitor resolves (≥ window). */
  resolutionTimeoutHours: number;
  scope: BranchScope;
}

export interface InfrastructureProtectionConfig {
  enabled: boolean;
  /** Share of an upload's tests that must fail (strictly more) for it to be excluded. */
  threshold: number;
  /** Uploads with fewer tests than this are never excluded (one failing test is not an outage). */
  minTests: number;
}

export interface DetectionConfig {
  /** Branch names (or patterns) of the stable branch class. */
  stableBranches: string[];
  /** Extra merge-queue branch patterns on top of the known queues' branch names. */
  mergeQueuePatterns: string[];
  passOnRetry: PassOnRetryConfig;
  failureRate: FailureRateMonitorConfig[];
  failureCount: FailureCountMonitorConfig[];
  infrastructure: InfrastructureProtectionConfig;
}

export const MAX_RECOVERY_DAYS = 15;
export const MAX_WINDOW_HOURS = 24 * 30;
export const MAX_MONITORS_PER_KIND = 10;
export const MAX_BRANCH_PATTERNS = 10;

const PROTECTED: BranchScope = { branchClasses: ['main', 'merge_queue'], branchPatterns: [] };

/** What a monitor given neither branch classes nor patterns watches. */
export const EVERY_BRANCH: BranchScope = { branchClasses: [], branchPatterns: ['*'] };

/** Values of fields a configuration may omit (docs/flaky-tests.md, "Rules"). */
export const MONITOR_DEFAULTS = {
  recoveryDays: 7,
  minSampleSize: 10,
  failureThreshold: 1,
  infrastructure: { enabled: true, threshold: 0.8, minTests: 10 },
} as const;

export function defaultDetectionConfig(): DetectionConfig {
  return {
    stableBranches: [...DEFAULT_STABLE_BRANCHES],
    mergeQueuePatterns: [],
    passOnRetry: { enabled: true, recoveryDays: MONITOR_DEFAULTS.recoveryDays, scope: clone(EVERY_BRANCH) },
    failureRate: [
      {
        id: 'broken-on-protected-branches',
        enabled: true,
        classification: 'broken',
        activationThreshold: 0.8,
        resolutionThreshold: 0.5,
        windowHours: 24,
        minSampleSize: 5,
        staleTimeoutHours: 7 * 24,
        scope: clone(PROTECTED),
      },
    ],
    failureCount: [
      {
        id: 'failure-on-protected-branches',
        enabled: true,
        classification: 'flaky',
        failureThreshold: 1,
        windowHours: 24,
        resolutionTimeoutHours: 7 * 24,
        scope: clone(PROTECTED),
      },
    ],
    infrastructure: { ...MONITOR_DEFAULTS.infrastructure },
  };
}

/** The configuration a new repository starts with: the defaults, with the operator's infrastructure threshold. */
export function initialDetectionConfig(infraFailureThreshold: number): DetectionConfig {
  const config = defaultDetectionConfig();
  config.infrastructure.threshold = infraFailureThreshold;
  return config;
}

function clone(scope: BranchScope): BranchScope {
  return { branchClasses: [...scope.branchClasses], branchPatterns: [...scope.branchPatterns] };
}

export interface ConfigProblem {
  /** JSON-pointer-like path in the configuration (domain names). */
  path: string;
  message: string;
}

/** Rules that span fields (ranges of single fields are the request schema's job). */
export function validateDetectionConfig(config: DetectionConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  const checkId = (id: string, path: string) => {
    if (seen.has(id)) problems.push({ path, message: `monitor id ${id} is used twice` });
    seen.add(id);
  };
  const checkScope = (scope: BranchScope, path: string) => {
    if (scope.branchClasses.length === 0 && scope.branchPatterns.length === 0) {
      problems.push({ path, message: 'a monitor needs at least one branch class or branch pattern' });
    }
  };
  checkScope(config.passOnRetry.scope, '/pass_on_retry');
  config.failureRate.forEach((m, i) => {
    const path = `/failure_rate/${i}`;
    checkId(m.id, `${path}/id`);
    if (m.resolutionThreshold > m.activationThreshold) {
      problems.push({ path: `${path}/resolution_threshold`, message: 'must not exceed activation_threshold' });
    }
    checkScope(m.scope, path);
  });
  config.failureCount.forEach((m, i) => {
    const path = `/failure_count/${i}`;
    checkId(m.id, `${path}/id`);
    if (m.resolutionTimeoutHours < m.windowHours) {
      problems.push({ path: `${path}/resolution_timeout_hours`, message: 'must be at least window_hours' });
    }
    checkScope(m.scope, path);
  });
  return problems;
}

/** Hours of history the monitors of this configuration need to look back. */
export function lookbackHours(config: DetectionConfig): number {
  let hours = config.passOnRetry.recoveryDays * 24;
  for (const m of config.failureRate) hours = Math.max(hours, m.windowHours, m.staleTimeoutHours ?? 0);
  for (const m of config.failureCount) hours = Math.max(hours, m.windowHours, m.resolutionTimeoutHours);
  // The windows count whole hours, so one more hour is touched.
  return hours + 1;
}
