import { type ApiError, errors, type FieldError } from "../api/errors.js";
import { generateName } from "../api/generate-name.js";
import type { KubeObject } from "../api/object.js";
import { carryStoredFields, prepareCreateMetadata, validateObjectMetadata } from "./metadata.js";
import type { RequestContext } from "./request-context.js";
import type { ResourceType } from "./resource-type.js";
import type { SchemaChecker } from "./schema-check.js";

/** What the refusal of a body its schema refuses is about. */
export interface SchemaRefusal {
  rt: ResourceType;
  checker: SchemaChecker;
  /** The body as admitted so far (pruned, its namespace and name set from the URL). */
  body: KubeObject;
  schemaErrors: FieldError[];
  ctx: RequestContext;
  /** A create (POST), where the kind's prepareForCreate fills in its defaults before validation. */
  create: boolean;
  /** A kind that stores nothing (selves, tokens): its metadata is not checked. */
  virtual: boolean;
  /** On an update of the main resource: reads the stored object the update would replace. */
  stored?: () => Promise<KubeObject | undefined>;
}

/**
 * The 422 of a body its schema refuses, listing every field error kube-apiserver lists at once
 * for a custom resource: metadata's, the schema's and the kind's own validation, so that a client
 * learns all of them from one answer rather than one kind of error per try. Admission plugins
 * are not asked: they read other objects, and nothing will be written.
 *
 * On an update, the rules that compare the body with the stored object are listed too, as the
 * write pipeline would (store.ts, writeUpdate): metadata only the server changes, new finalizers
 * of a terminating object, and the kind's validateUpdate (a field that may not change).
 *
 * Metadata and the kind's rules are code written for objects of the schema's shape: they read
 * the body without the values the schema refused, and what they report of a field the schema
 * already refused (a value they now find missing) is left out, so each field has one error.
 */
export async function schemaRefusal(r: SchemaRefusal): Promise<ApiError> {
  const readable = r.checker.withoutRefusedValues(r.body);
  const old = r.create ? undefined : await r.stored?.();
  const carried = old ? carryStoredFields(readable, old, r.rt.hasStatus) : [];
  const metadata = r.virtual ? [] : [...metadataErrors(r.rt, readable, r.create), ...carried];
  const ownRules = await kindErrors(r.rt, readable, r.ctx, r.create, old);
  const all = [
    ...outsideRefused(metadata, r.schemaErrors),
    ...r.schemaErrors,
    ...outsideRefused(ownRules, r.schemaErrors),
  ];
  const name = typeof r.body.metadata.name === "string" ? r.body.metadata.name : "";
  return errors.invalid(r.rt.kind, r.rt.group, name, all);
}

function metadataErrors(rt: ResourceType, obj: KubeObject, create: boolean): FieldError[] {
  if (create) {
    prepareCreateMetadata(obj, new Date());
    // As create does before validating: the name is checked as the one generated would be.
    if (!obj.metadata.name && obj.metadata.generateName) obj.metadata.name = generateName(obj.metadata.generateName);
  }
  return validateObjectMetadata(obj, rt.names?.format ?? "subdomain", rt.names?.maxLength);
}

/**
 * The kind's own validation of what the schema left readable, after the prepare step whose
 * defaults it expects (prepareForCreate, or prepareForUpdate and validateUpdate with the stored
 * object). A rule that fails on a field the refused values left missing is not asked again: the
 * schema's errors are the answer, and that rule's turn comes when the body is fixed.
 */
async function kindErrors(
  rt: ResourceType,
  obj: KubeObject,
  ctx: RequestContext,
  create: boolean,
  old: KubeObject | undefined,
): Promise<FieldError[]> {
  const s = rt.strategy;
  try {
    if (old) {
      const prepared = await s.prepareForUpdate?.(obj, old, ctx);
      const errs = s.validateUpdate ? await s.validateUpdate(obj, old, ctx) : await s.validate?.(obj, ctx);
      return [...(prepared?.fieldErrors ?? []), ...(errs ?? [])];
    }
    const prepared = create ? await s.prepareForCreate?.(obj, ctx) : undefined;
    return [...(prepared?.fieldErrors ?? []), ...((await s.validate?.(obj, ctx)) ?? [])];
  } catch {
    return [];
  }
}

/** The errors not about a field the schema refused, nor about anything inside one. */
function outsideRefused(errs: FieldError[], refused: FieldError[]): FieldError[] {
  const inside = (field: string, at: string) =>
    field === at || field.startsWith(`${at}.`) || field.startsWith(`${at}[`);
  return errs.filter((e) => !refused.some((r) => inside(e.field, r.field)));
}
