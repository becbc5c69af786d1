import type { FastifyReply } from "fastify";

/**
 * The console's page and script come only from this server; nothing inline runs (React sets
 * text, never HTML), nothing may frame it, and no referrer leaves it.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export function setSecurityHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers({
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "strict-transport-security": "max-age=31536000",
    "x-content-type-options": "nosniff",
    "cross-origin-opener-policy": "same-origin",
  });
}
