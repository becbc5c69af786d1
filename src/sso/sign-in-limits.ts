/**
 * The sign-in limits' shape and defaults, apart from the limiter: `platform start` shows the
 * defaults in its help, and the CLI loads none of what the limiter needs (sign-in-limiter.ts).
 */

/** How fast sign-ins may be started (`--oidc-sign-in-*`); see docs/sso.md. */
export interface SignInLimits {
  /** Sign-ins one address may start at once before it has to wait. */
  burstPerAddress: number;
  /** Sign-ins per minute an address may start once its burst is used up. */
  perAddressPerMinute: number;
  /** Sign-ins per second this process starts across every address. */
  globalPerSecond: number;
  /** Addresses remembered; the least recently seen is forgotten first. */
  maxAddresses: number;
}

/**
 * Defaults: a person retrying a few times, or a team behind one NAT starting the day, stays under
 * them. The global rate keeps a flood from many addresses below the sweeper's cap of 10,000 entries:
 * sign-ins live 10 minutes, and 10 per second for 10 minutes is 6,000 (per process).
 */
export const SIGN_IN_LIMIT_DEFAULTS: SignInLimits = {
  burstPerAddress: 20,
  perAddressPerMinute: 6,
  globalPerSecond: 10,
  maxAddresses: 10_000,
};
