import { specOf } from "../api/object.js";
import { InvalidTokenError, type TokenSigner } from "../crypto/jwt.js";
import type { UserSpec } from "../kinds/user/user.js";
import type { UserInfo } from "../registry/request-context.js";
import type { IdentityIndex } from "./identity-index.js";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Whether a bearer token has a JWT's shape (maybe a DirectClusterEndpointToken); nothing verified. */
export function looksLikeDirectToken(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/**
 * The AccessKeyAuthenticator fallback for DirectClusterEndpointTokens (docs/permissions.md): a JWT
 * this server signed is the identity of its `sub`, narrowed by its `scope`. Expired, forged or
 * foreign tokens, and tokens of users since disabled or deleted, are no identity (401).
 */
export function directTokenFallback(
  identity: IdentityIndex,
  signer: Pick<TokenSigner, "verifyToken">,
): (token: string) => Promise<UserInfo | undefined> {
  return async (token) => {
    if (!JWT_SHAPE.test(token)) return undefined;
    let claims: Awaited<ReturnType<TokenSigner["verifyToken"]>>;
    try {
      claims = await signer.verifyToken(token);
    } catch (err) {
      if (err instanceof InvalidTokenError) return undefined;
      throw err;
    }
    const scope = (claims.scope ?? undefined) as Record<string, unknown> | undefined;
    const credential = { type: "DirectClusterEndpointToken" as const, scope };
    const kind = claims.subjectKind;
    if (kind === "Team") {
      const team = identity.team(claims.sub);
      if (!team) return undefined;
      return { name: claims.sub, subjectKind: "Team", uid: team.metadata.uid, groups: [], teams: [], credential };
    }
    if (kind === "User") {
      const user = identity.user(claims.sub);
      if (!user || user.spec?.disabled === true) return undefined;
      const groups = specOf<UserSpec>(user).groups ?? [];
      const teams = identity.teamsOfUser(claims.sub, groups).map((t) => t.metadata.name ?? "");
      return { name: claims.sub, subjectKind: "User", uid: user.metadata.uid, groups, teams, credential };
    }
    return { name: claims.sub, subjectKind: "Subject", groups: [], teams: [], credential };
  };
}
