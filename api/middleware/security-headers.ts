// Headers that keep a browser from being turned against the service (issue 22, M7): a strict
// Content-Security-Policy (scripts, styles, fonts and connections from this origin only; never
// framed), nosniff, and a referrer policy that keeps URLs inside the origin. Set by helmet on every
// answer; the API reference page widens the policy for what Swagger UI needs (openapi-routes.ts).
import helmet from 'koa-helmet';
import type { Middleware } from 'koa';

/** The dashboard's policy: everything from this origin; images also as data: URLs (the favicon). */
export const DASHBOARD_CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
} as const;

export function securityHeaders(): Middleware {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { ...DASHBOARD_CSP_DIRECTIVES } },
    referrerPolicy: { policy: 'same-origin' },
    frameguard: { action: 'deny' },
    // Cross-origin isolation headers would stop nothing here and break embedding links elsewhere.
    crossOriginEmbedderPolicy: false,
    // HSTS belongs to the TLS terminator in front of the service, which knows whether TLS is used.
    strictTransportSecurity: false,
  });
}
