// The compatible API's service status (GET /v1/status): "up" when every dependency answers,
// otherwise "impacted" naming what does not.

export interface DependencyCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export type StatusColor = 'green' | 'yellow' | 'red';

export interface ServiceStatus {
  overallStatus:
    | { type: 'up'; color: 'green'; overallStatusDescription: 'All systems operational' }
    | {
        type: 'impacted';
        color: 'yellow' | 'red';
        overallStatusDescription: 'Impacted';
        impactedStatuses: { name: string; color: 'yellow' | 'red'; statusDescription: string }[];
      };
  statuses: { name: string; color: StatusColor; statusDescription: string }[];
}

/** Every dependency is required for the service to work, so any failing one makes it red. */
export function serviceStatus(checks: readonly DependencyCheck[]): ServiceStatus {
  const statuses = checks.map((c) => ({ name: c.name, color: (c.ok ? 'green' : 'red') as StatusColor, statusDescription: c.detail }));
  const impacted = checks.filter((c) => !c.ok).map((c) => ({ name: c.name, color: 'red' as const, statusDescription: c.detail }));
  if (impacted.length === 0) {
    return { overallStatus: { type: 'up', color: 'green', overallStatusDescription: 'All systems operational' }, statuses };
  }
  return { overallStatus: { type: 'impacted', color: 'red', overallStatusDescription: 'Impacted', impactedStatuses: impacted }, statuses };
}
