// Request schemas of the flaky-tests API (wire-contract §3; OpenAPI /flaky-tests/*).
import Type, { type Static } from 'typebox';
import { dateTimeSchema, repoSchema } from '../../validation/common.js';
import { classificationSchema, orgSlugSchema, pageQuerySchema, testIdSchema } from './common-schemas.js';
import { compileValidator } from '../../validation/validator.js';

const listBase = { repo: repoSchema, org_url_slug: orgSlugSchema, page_query: pageQuerySchema };

export const ListQuarantinedSchema = Type.Object(listBase, { additionalProperties: false });
export type ListQuarantinedBody = Static<typeof ListQuarantinedSchema>;

export const parseListQuarantined = compileValidator(ListQuarantinedSchema);

/** `status` is lower-cased by the validator (FLAKY/BROKEN on the wire; any letter case accepted). */
export const ListUnhealthySchema = Type.Object({ ...listBase, status: classificationSchema }, { additionalProperties: false });
export type ListUnhealthyBody = Static<typeof ListUnhealthySchema>;

export const parseListUnhealthy = compileValidator(ListUnhealthySchema);

export const ListFailingSchema = Type.Object({ ...listBase, start_time: dateTimeSchema(), end_time: dateTimeSchema() }, { additionalProperties: false });
export type ListFailingBody = Static<typeof ListFailingSchema>;

export const parseListFailing = compileValidator(ListFailingSchema);

export const TestDetailsSchema = Type.Object({ repo: repoSchema, org_url_slug: orgSlugSchema, test_id: testIdSchema }, { additionalProperties: false });
export type TestDetailsBody = Static<typeof TestDetailsSchema>;

export const parseTestDetails = compileValidator(TestDetailsSchema);

export const LinkTicketSchema = Type.Object(
  {
    repo: repoSchema,
    test_case_id: testIdSchema,
    external_ticket_id: Type.String({ minLength: 1, maxLength: 2048, pattern: '\\S' }),
    /** Not in the compatible API's request; accepted for symmetry and checked when present. */
    org_url_slug: Type.Optional(orgSlugSchema),
  },
  { additionalProperties: false },
);
export type LinkTicketBody = Static<typeof LinkTicketSchema>;

export const parseLinkTicket = compileValidator(LinkTicketSchema);
