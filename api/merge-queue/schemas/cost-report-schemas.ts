// POST /v1/getQueueCostReport: its request and its 200 answer (docs/api.md, "CI cost by cause").
import Type, { type Static } from 'typebox';
import { branchSchema, dateTimeSchema, repoSchema } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';
import { REASONS } from '../../../shared/merge-queue/domain/model.js';
import { WASTE_CAUSES } from '../../../shared/merge-queue/domain/metrics/cost-report.js';

export const CostReportSchema = Type.Object(
  {
    repo: repoSchema,
    targetBranch: branchSchema,
    since: Type.Optional(dateTimeSchema()),
    until: Type.Optional(dateTimeSchema()),
  },
  { additionalProperties: false },
);
export type CostReportBody = Static<typeof CostReportSchema>;
export const parseCostReport = compileValidator(CostReportSchema);

const closed = <P extends Parameters<typeof Type.Object>[0]>(properties: P) => Type.Object(properties, { additionalProperties: false });
const nullableNumber = Type.Union([Type.Number(), Type.Null()]);

const WastedRun = closed({
  testRunId: Type.String(),
  testBranch: Type.String(),
  reason: Type.Union([Type.Enum([...REASONS], { type: 'string' }), Type.Null()]),
  detail: Type.Union([Type.String(), Type.Null()]),
  ciMinutes: Type.Number(),
});

export const CostReportResponse = closed({
  repo: closed({ host: Type.String(), owner: Type.String(), name: Type.String() }),
  targetBranch: Type.String(),
  since: Type.String({ format: 'date-time' }),
  until: Type.String({ format: 'date-time' }),
  testRunsStarted: Type.Integer(),
  testRunsReused: Type.Integer(),
  ciMinutes: Type.Number(),
  mergedPullRequests: Type.Integer(),
  testRunsPerMergedPr: nullableNumber,
  ciMinutesPerMergedPr: nullableNumber,
  wasted: closed({
    runs: Type.Integer(),
    ciMinutes: Type.Number(),
    byCause: Type.Array(
      closed({
        cause: Type.Enum([...WASTE_CAUSES], { type: 'string' }),
        runs: Type.Integer(),
        ciMinutes: Type.Number(),
        examples: Type.Array(WastedRun),
      }),
    ),
  }),
});
