// The merge-queue metrics rules: pure functions from stored entries and `now` to series values.
export * from './series.js';
export * from './entry-observations.js';
export * from './queue-metrics.js';
