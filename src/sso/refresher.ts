import { type KubeObject, specOf } from "../api/object.js";
import { keyExpiry, type OwnedAccessKeySpec } from "../kinds/owned-access-key/owned-access-key.js";
import type { SecretDataCipher } from "../kinds/shared-secret/shared-secret.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { PeriodicTask } from "../support/periodic-task.js";
import { identityFromClaims, isAllowed, SsoRefusal } from "./claims.js";
import type { OidcConfig } from "./config.js";
import { type IdentityProvider, IdpUnreachableError, LoginRefusedError } from "./identity-provider.js";
import { CONNECTOR, CONNECTOR_LABEL, type ConnectorData, identitySpec } from "./login-keys.js";
import { setGroups } from "./user-sync.js";

export type RefreshOutcome = "refreshed" | "disabled" | "skipped" | "unreachable";

/**
 * Keeps the identity of SSO Login keys current: every `--oidc-refresh-interval` each live key with
 * a refresh token is refreshed at the IdP, and the user's groups (so its teams) follow the new ID
 * token. A refresh the IdP refuses — or a person no longer allowed — disables the key; an IdP that
 * cannot be reached changes nothing (the next round tries again). Runs on the elected replica.
 */
export class LoginKeyRefresher {
  readonly #task: PeriodicTask<unknown>;

  constructor(
    private readonly registry: Registry,
    private readonly idp: IdentityProvider,
    private readonly settings: OidcConfig,
    private readonly cipher: SecretDataCipher,
    onError: (err: unknown) => void,
  ) {
    // Keys come due at different times: look a few times per refresh interval (1 s to 1 min).
    const intervalMs = Math.max(1000, Math.min(60_000, (settings.refreshIntervalSeconds * 1000) / 4));
    this.#task = new PeriodicTask(() => this.refreshDue(), { intervalMs, onError });
  }

  start(): void {
    this.#task.start();
  }

  async stop(): Promise<void> {
    await this.#task.stop();
  }

  /** Refreshes every key whose identity is older than the refresh interval (all of them with `force`). */
  async refreshDue(force = false, now = Date.now()): Promise<Map<string, RefreshOutcome>> {
    const keys = await this.registry
      .store("ownedaccesskeys")
      .list(systemContext(), undefined, { labelSelector: `${CONNECTOR_LABEL}=${CONNECTOR}` });
    const outcomes = new Map<string, RefreshOutcome>();
    for (const key of keys.items) {
      if (!force && !this.isDue(key, now)) continue;
      outcomes.set(key.metadata.name!, await this.refreshKey(key.metadata.name!));
    }
    return outcomes;
  }

  private isDue(key: KubeObject, now: number): boolean {
    if (specOf<OwnedAccessKeySpec>(key).disabled === true) return false;
    const expiry = keyExpiry(key);
    if (expiry && Date.parse(expiry) <= now) return false;
    const last = Date.parse(specOf<OwnedAccessKeySpec>(key).identity?.identityRefresh ?? "");
    return Number.isNaN(last) || now - last >= this.settings.refreshIntervalSeconds * 1000;
  }

  /** One key: refresh at the IdP, then the user's groups and the key's identity, or disable it. */
  async refreshKey(name: string): Promise<RefreshOutcome> {
    const store = this.registry.store("ownedaccesskeys");
    const key = await store.read(undefined, name);
    const data = key && this.connectorData(key);
    if (!key || specOf<OwnedAccessKeySpec>(key).disabled === true || !data?.refreshToken) return "skipped";
    try {
      const result = await this.idp.refresh(data.refreshToken);
      const identity = identityFromClaims(result.claims, this.settings);
      if (identity.subject !== data.subject) throw new SsoRefusal(403, "the refreshed token names another subject");
      if (!isAllowed(identity, this.settings)) throw new SsoRefusal(403, "no longer in an allowed group");
      const user = specOf<OwnedAccessKeySpec>(key).user ?? "";
      if (!(await setGroups(this.registry, user, identity))) throw new SsoRefusal(403, "the user is gone");
      const next: ConnectorData = { ...data, refreshToken: result.refreshToken ?? data.refreshToken };
      await store.guaranteedUpdate(systemContext(), undefined, name, (obj) => {
        obj.spec = { ...obj.spec, identity: identitySpec(identity, next, new Date()) };
        return obj;
      });
      return "refreshed";
    } catch (err) {
      if (err instanceof IdpUnreachableError) return "unreachable";
      if (!(err instanceof LoginRefusedError || err instanceof SsoRefusal)) throw err;
      await this.disable(name);
      return "disabled";
    }
  }

  private async disable(name: string): Promise<void> {
    await this.registry.store("ownedaccesskeys").guaranteedUpdate(systemContext(), undefined, name, (obj) => {
      obj.spec = { ...obj.spec, disabled: true };
      return obj;
    });
  }

  private connectorData(key: KubeObject): ConnectorData | undefined {
    const stored = specOf<OwnedAccessKeySpec>(key).identity?.connectorData;
    if (!stored) return undefined;
    try {
      return JSON.parse(this.cipher.decrypt(stored)) as ConnectorData;
    } catch {
      return undefined;
    }
  }
}
