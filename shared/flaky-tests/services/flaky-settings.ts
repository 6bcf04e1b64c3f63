// Operator settings of the flaky-tests pipeline (from shared/config.ts), passed to its services.
import { MONITOR_DEFAULTS } from '../domain/detection/config.js';

export interface FlakySettings {
  /** Runs, counters and uploads expire after this many days; idle unpinned tests too. */
  retentionDays: number;
  /** Largest request accepted by the upload endpoints (compressed bytes). */
  maxUploadBytes: number;
  /** Largest report after gzip decompression. */
  maxReportBytes: number;
  /** Issue-tracker URL template with `{ticket}`; a repository setting overrides it. */
  ticketUrlTemplate: string | null;
  /** Initial infrastructure-failure share of new repositories. */
  infraFailureThreshold: number;
  /** How long an upload URL from createBundleUpload stays valid. */
  bundleUrlTtlSeconds: number;
  /** Base of links handed out (upload URLs, html_url); null: the request's origin. */
  publicUrl: string | null;
  /** How long an upload request waits for its processing before answering 202. */
  uploadWaitSeconds: number;
}

export const DEFAULT_FLAKY_SETTINGS: FlakySettings = {
  retentionDays: 45,
  maxUploadBytes: 256 * 1024 * 1024,
  maxReportBytes: 1024 * 1024 * 1024,
  ticketUrlTemplate: null,
  infraFailureThreshold: MONITOR_DEFAULTS.infrastructure.threshold,
  bundleUrlTtlSeconds: 3600,
  publicUrl: null,
  uploadWaitSeconds: 30,
};
