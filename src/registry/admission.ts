import type { FieldError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import type { RequestContext, UserInfo } from "./request-context.js";
import type { ResourceType } from "./resource-type.js";
import type { WriteGuard } from "./write-guards.js";

/** What a write asks to do, as every admission plugin sees it (Kubernetes' admission.Attributes). */
export interface AdmissionAttributes {
  /** DELETE runs only the validating phase, on the object as stored. */
  operation: "CREATE" | "UPDATE" | "DELETE";
  resourceType: ResourceType;
  /** "" for the object itself, "status" for the status subresource. */
  subresource: "" | "status";
  /** The object as it will be stored; a mutating plugin may change it. */
  object: KubeObject;
  /** The stored object an update replaces (undefined on create). */
  oldObject?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
  /** `Warning: 299` headers of the request; plugins may add to them. */
  warnings: string[];
  /**
   * Writes that commit with a CREATE or an UPDATE or not at all (write-guards.ts); a validating
   * plugin adds them, and a write that fails on one runs admission again. Ignored on DELETE.
   */
  guards: WriteGuard[];
  /**
   * A CREATE that takes the place of a stored object, deleted in the same transaction (a move's
   * source, registry.transact): what that object holds passes to the new one.
   */
  replacing?: KubeObject;
}

/**
 * One admission plugin. Both phases are optional; a plugin acts only on the kinds it names
 * itself (it returns early for the others).
 *
 * - `admit` (mutating) runs on the object as the client sent it (after the body is decoded and
 *   checked against the schema), before the kind's `strategy.prepare*`. It may change the object,
 *   throw an ApiError to refuse, or return field errors: those are reported with the metadata
 *   and strategy validation errors in one 422 Invalid.
 * - `validate` runs on the object as it will be stored, after it passed validation, before the
 *   write. It never changes the object; it throws an ApiError to refuse.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attrs: AdmissionAttributes): FieldError[] | undefined | Promise<FieldError[] | undefined>;
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

/** The plugins in the order they run (src/admission/plugins.ts lists the server's). */
export class AdmissionChain {
  constructor(readonly plugins: readonly AdmissionPlugin[]) {}

  /** Runs every plugin's `admit` in order; returns the field errors they reported. */
  async admit(attrs: AdmissionAttributes): Promise<FieldError[]> {
    const errs: FieldError[] = [];
    for (const plugin of this.plugins) {
      // Awaited only when it is a promise: most plugins skip most kinds, and every write runs them all.
      const result = plugin.admit?.(attrs);
      const found = result instanceof Promise ? await result : result;
      if (found) errs.push(...found);
    }
    return errs;
  }

  /** Runs every plugin's `validate` in order; the first refusal is thrown. */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      const result = plugin.validate?.(attrs);
      if (result instanceof Promise) await result;
    }
  }
}

/** The attributes of a write by `ctx`'s caller. */
export function admissionAttributes(
  operation: AdmissionAttributes["operation"],
  rt: ResourceType,
  object: KubeObject,
  oldObject: KubeObject | undefined,
  ctx: RequestContext,
  dryRun: boolean,
  subresource: "" | "status" = "",
): AdmissionAttributes {
  return {
    operation,
    resourceType: rt,
    subresource,
    object,
    oldObject,
    user: ctx.user,
    dryRun,
    warnings: ctx.warnings,
    guards: [],
  };
}

/** The server's own writes (controllers, bootstrap) are not asked about by caller-facing checks. */
export function isServerWrite(attrs: AdmissionAttributes): boolean {
  return attrs.user.credential?.type === "Internal";
}
