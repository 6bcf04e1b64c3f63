// Links taken from outside (a CI status's target URL, a check run's page, a ticket) are shown to
// people as links, so only http(s) ones are kept: a `javascript:` or `data:` URL stored once would
// run in whoever opens it, in any client that renders it.

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The link when it is an http(s) URL, else null (a link from a source the service does not refuse). */
export function httpLinkOrNull(value: string | null | undefined): string | null {
  return value && isHttpUrl(value) ? value : null;
}
