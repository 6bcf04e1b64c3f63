// Request schemas of the flaky-tests API (wire-contract §3; OpenAPI /flaky-tests/*).
import type { RepoRef } from '../../../shared/repo-ref.js';
import { repoSchema } from '../../validation/common.js';
import { orgSlugSchema, pageQuerySchema, testIdSchema, type PageQuery } from './common-schemas.js';
import { compileValidator } from '../../validation/validator.js';

export interface ListQuarantinedBody {
  repo: RepoRef;
  org_url_slug: string;
  page_query: PageQuery;
}

const listBase = {
  repo: repoSchema,
  org_url_slug: orgSlugSchema,
  page_query: pageQuerySchema,
};

export const parseListQuarantined = compileValidator<ListQuarantinedBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'page_query'],
  properties: listBase,
});

export interface ListUnhealthyBody extends ListQuarantinedBody {
  /** Lower-cased by the validator (FLAKY/BROKEN on the wire; any letter case accepted). */
  status: 'flaky' | 'broken';
}

export const parseListUnhealthy = compileValidator<ListUnhealthyBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'page_query', 'status'],
  properties: { ...listBase, status: { type: 'string', maxLength: 16, caseInsensitiveEnum: ['flaky', 'broken'] } },
});

export interface ListFailingBody extends ListQuarantinedBody {
  start_time: string;
  end_time: string;
}

export const parseListFailing = compileValidator<ListFailingBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'page_query', 'start_time', 'end_time'],
  properties: {
    ...listBase,
    start_time: { type: 'string', format: 'date-time', maxLength: 64 },
    end_time: { type: 'string', format: 'date-time', maxLength: 64 },
  },
});

export interface TestDetailsBody {
  repo: RepoRef;
  org_url_slug: string;
  test_id: string;
}

export const parseTestDetails = compileValidator<TestDetailsBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'org_url_slug', 'test_id'],
  properties: { repo: repoSchema, org_url_slug: orgSlugSchema, test_id: testIdSchema },
});

export interface LinkTicketBody {
  repo: RepoRef;
  test_case_id: string;
  external_ticket_id: string;
  /** Not in the compatible API's request; accepted for symmetry and checked when present. */
  org_url_slug?: string;
}

export const parseLinkTicket = compileValidator<LinkTicketBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'test_case_id', 'external_ticket_id'],
  properties: {
    repo: repoSchema,
    test_case_id: testIdSchema,
    external_ticket_id: { type: 'string', minLength: 1, maxLength: 2048, pattern: '\\S' },
    org_url_slug: orgSlugSchema,
  },
});
