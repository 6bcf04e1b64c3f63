// Ticket links (notes §1.9): `external_ticket_id` (a Jira key such as KAN-123, a Linear id…)
// becomes a URL through the issue tracker's template, e.g.
// `https://acme.atlassian.net/browse/{ticket}`. An id that already is an http(s) URL is kept.

import { isHttpUrl } from '../../../platform/http-link.js';

export const TICKET_PLACEHOLDER = '{ticket}';

export function isValidTicketTemplate(template: string): boolean {
  return template.includes(TICKET_PLACEHOLDER) && isHttpUrl(template.split(TICKET_PLACEHOLDER).join('X'));
}

/** The ticket's URL, or null when there is no usable template and the id is not a URL. */
export function ticketUrl(externalId: string, template: string | null): string | null {
  const id = externalId.trim();
  if (isHttpUrl(id)) return id;
  if (!template || !isValidTicketTemplate(template)) return null;
  return template.split(TICKET_PLACEHOLDER).join(encodeURIComponent(id));
}
