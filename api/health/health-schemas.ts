// Answers of the endpoints that need no token: liveness, readiness and the compatible API's
// service status (shared/runtime/service-status.ts).
import Type from 'typebox';

const colour = (values: string[]) => Type.Enum(values, { type: 'string' });
const component = Type.Object(
  { name: Type.String(), color: colour(['green', 'yellow', 'red']), statusDescription: Type.String() },
  { additionalProperties: false },
);
const impacted = Type.Object({ name: Type.String(), color: colour(['yellow', 'red']), statusDescription: Type.String() }, { additionalProperties: false });

export const HealthResponse = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

/** A dependency failed every check for longer than DEPENDENCY_LOST_SECONDS (docs/operations.md). */
export const DependencyLostResponse = Type.Object(
  {
    status: Type.Literal('dependency_lost'),
    /** Each lost dependency: why its last check failed. */
    lost: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false },
);

export const ReadinessResponse = Type.Object(
  {
    status: Type.Enum(['ready', 'not_ready'], { type: 'string' }),
    /** Each dependency's check: `ok` or `unavailable: <why>`. */
    checks: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false },
);

export const ServiceStatusResponse = Type.Object(
  {
    overallStatus: Type.Union([
      Type.Object(
        { type: Type.Literal('up'), color: colour(['green']), overallStatusDescription: Type.Literal('All systems operational') },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          type: Type.Literal('impacted'),
          color: colour(['yellow', 'red']),
          overallStatusDescription: Type.Literal('Impacted'),
          impactedStatuses: Type.Array(impacted),
        },
        { additionalProperties: false },
      ),
    ]),
    statuses: Type.Array(component),
  },
  { additionalProperties: false },
);
