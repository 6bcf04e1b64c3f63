// Process metrics (CPU, memory, event loop, GC: prom-client's defaults) describe the process, not
// a service context, so there is one registry per process however many contexts it opens (the
// tests open many). Created on first use.
import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * prom-client also reports the sums of its per-type gauges as `nodejs_active_*_total` gauges.
 * A `_total` suffix on a gauge is a lint error for `promtool check metrics`, and the sums are
 * `sum(nodejs_active_handles)` etc., so they are left out.
 */
const DROPPED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

let registry: Registry | null = null;

export function processMetricsRegistry(): Registry {
  if (registry) return registry;
  const r = new Registry();
  collectDefaultMetrics({ register: r });
  for (const name of DROPPED) r.removeSingleMetric(name);
  registry = r;
  return r;
}
