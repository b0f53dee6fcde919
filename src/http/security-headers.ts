import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * Helmet's defaults, less the two headers that assume the browser reached us over TLS. The API is
 * also reached over plain HTTP (a private network, a proxy terminating TLS in front of it):
 * `upgrade-insecure-requests` would make the browser fetch every asset of an HTML page (the
 * reference at /api/v1/docs) over https from a server that only speaks http, so the page stays
 * blank; and whether a whole host is HTTPS-only (HSTS, subdomains included) is for the proxy that
 * terminates TLS to declare. The rest of the policy (scripts and styles from our own origin,
 * inline styles, data: images) is what Swagger UI needs.
 */
export const SECURITY_HEADERS: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  strictTransportSecurity: false,
};
