/**
 * Identities the authenticator (authenticator.ts) answered from its cache, and built from the
 * identity index, since the last scrape: plain numbers bumped per request, which the metrics
 * (src/metrics/metrics.ts, platform_identity_cache_lookups_total) read and reset when scraped.
 * Here, beside the authenticator, so that authentication never imports the metrics above it.
 */
export const identityCacheCounts = { hits: 0, builds: 0 };
