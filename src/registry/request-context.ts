import type { KubeObject } from "../api/object.js";

/** Who is calling, as authentication established it. */
export interface UserInfo {
  /** The user name, team name or subject the credential belongs to. */
  name: string;
  /** What kind of subject: a User object, a Team object, or a free subject string. */
  subjectKind: "User" | "Team" | "Subject";
  uid?: string;
  groups: string[];
  /** Teams the user belongs to (empty for team and subject credentials). */
  teams: string[];
  /** The access key (or token) that authenticated the request. */
  credential?: {
    type: "AccessKey" | "DirectClusterEndpointToken" | "Internal";
    name?: string;
    keyType?: string;
    /** The key's scope (docs/permissions.md), narrowing what the identity may do. */
    scope?: Record<string, unknown>;
  };
  /** Set when an admin acted as someone else through impersonation headers. */
  impersonatedBy?: string;
}

/** Per-request state handed through the registry to strategies. */
export interface RequestContext {
  user: UserInfo;
  /** Warnings collected for `Warning: 299` headers. */
  warnings: string[];
  /**
   * Decides whether this caller may see an object in a list or watch. The authorizer installs it;
   * absent means everything the verb-level check allowed.
   */
  canSee?: (obj: KubeObject) => boolean;
}

/** The server's own identity, for controllers and bootstrap. */
export const SYSTEM_USER: UserInfo = Object.freeze({
  name: "system:platform",
  subjectKind: "Subject",
  groups: ["system:masters"],
  teams: [],
  credential: { type: "Internal" },
}) as UserInfo;

export function systemContext(): RequestContext {
  return { user: SYSTEM_USER, warnings: [] };
}
