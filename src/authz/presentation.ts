import type { Registry } from "../registry/registry.js";
import type { PlatformAuthorizer } from "./authorizer.js";

/**
 * `platform-management-view` reads SharedSecrets without their data (decisions.md §5): the kind's
 * present() is wrapped so every get, list and watch event drops `spec.data` for a caller who
 * sees the object only through that role.
 */
export function installSecretPresentation(registry: Registry, authz: PlatformAuthorizer): void {
  const rt = registry.find("sharedsecrets")?.rt;
  if (!rt) return;
  const inner = rt.strategy.present;
  rt.strategy.present = (obj, ctx) => {
    const shown = inner ? inner(obj, ctx) : obj;
    if (shown.spec?.data === undefined || authz.canReadSecretData(ctx.user, obj)) return shown;
    const { data: _hidden, ...spec } = shown.spec;
    return { ...shown, spec };
  };
}
