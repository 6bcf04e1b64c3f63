// The time a run is filed under. JUnit timestamps are what the test runner wrote and are often
// wrong (year 0001 in gotestsum, a container's clock, a report re-uploaded days later), and a run
// filed in the past would miss every rolling window or expire at once. So a report's own
// timestamp is used only when it is plausible for this upload; otherwise the upload's time is.

/** A run may have started at most this long before the upload was received (the CLI warns past 24h). */
export const MAX_RUN_AGE_MS = 24 * 3_600_000;
/** Clock skew tolerated for timestamps after the upload was received. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export function isPlausibleRunTime(at: Date | null | undefined, receivedAt: Date): at is Date {
  if (!at) return false;
  const t = at.getTime();
  if (!Number.isFinite(t)) return false;
  return t >= receivedAt.getTime() - MAX_RUN_AGE_MS && t <= receivedAt.getTime() + MAX_CLOCK_SKEW_MS;
}

/** The run's own timestamp if plausible, else the upload's declared start if plausible, else receipt. */
export function runTime(reported: Date | null, uploadStartedAt: Date | null, receivedAt: Date): Date {
  if (isPlausibleRunTime(reported, receivedAt)) return reported;
  if (isPlausibleRunTime(uploadStartedAt, receivedAt)) return uploadStartedAt;
  return receivedAt;
}
