// Public surface of flaky-test detection (pure: no I/O).
export * from './types.js';
export * from './config.js';
export * from './branch-scope.js';
export * from './windows.js';
export * from './monitor.js';
export * from './pass-on-retry.js';
export * from './failure-rate.js';
export * from './failure-count.js';
export * from './classify.js';
export * from './infrastructure.js';
export * from './quarantine.js';
export * from './metrics.js';
export * from './run-time.js';
export * from './format.js';
export * from './ticket-url.js';
export * from './failing-window.js';
export * from './most-common-failures.js';
