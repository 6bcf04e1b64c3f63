// The merge-queue planner: a pure function from a queue snapshot to the actions that move it on.
export { plan } from './plan.js';
export type * from './types.js';
