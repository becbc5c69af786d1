import { API_VERSION, type KubeObject } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import type { SsoIdentity } from "./claims.js";
import type { OidcConfig } from "./config.js";

/** Marks the Login keys sign-in created (the refresher lists them by it). */
export const CONNECTOR_LABEL = "management.platform/connector";
export const CONNECTOR = "oidc";

const WRITE = { dryRun: false, fieldManager: "platform-sso", fieldValidation: "Strict" as const };

/** What connectorData holds (encrypted at rest by the OwnedAccessKey kind, never shown). */
export interface ConnectorData {
  issuer: string;
  subject: string;
  refreshToken?: string;
}

/** spec.identity of a Login key, from the token's claims. */
export function identitySpec(identity: SsoIdentity, connectorData: ConnectorData, now: Date): Record<string, unknown> {
  return {
    userId: identity.subject,
    username: identity.username,
    ...(identity.preferredUsername ? { preferredUsername: identity.preferredUsername } : {}),
    ...(identity.email ? { email: identity.email } : {}),
    ...(identity.emailVerified !== undefined ? { emailVerified: identity.emailVerified } : {}),
    groups: identity.groups,
    connector: CONNECTOR,
    connectorData: JSON.stringify(connectorData),
    identityRefresh: now.toISOString().replace(/\.\d+Z$/, "Z"),
  };
}

/** Creates the Login key of one sign-in; returns its name and the plaintext key (only this response has it). */
export async function createLoginKey(
  registry: Registry,
  user: KubeObject,
  identity: SsoIdentity,
  refreshToken: string | undefined,
  settings: OidcConfig,
  redirectUri: string,
): Promise<{ name: string; key: string }> {
  const created = await registry.store("ownedaccesskeys").create(
    systemContext(),
    undefined,
    {
      apiVersion: API_VERSION,
      kind: "OwnedAccessKey",
      metadata: { generateName: "sso-", labels: { [CONNECTOR_LABEL]: CONNECTOR } },
      spec: {
        user: user.metadata.name,
        type: "Login",
        displayName: `Sign-in with ${new URL(settings.issuerUrl).host}`,
        ttl: settings.loginKeyTtlSeconds,
        identity: identitySpec(
          identity,
          { issuer: identity.issuer, subject: identity.subject, ...(refreshToken ? { refreshToken } : {}) },
          new Date(),
        ),
        oidcProvider: { clientId: settings.clientId, redirectUri, scopes: settings.scopes.join(" ") },
      },
    },
    WRITE,
  );
  return { name: created.metadata.name!, key: String(created.spec?.key) };
}
