import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import { type ApiError, errors, fieldError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { objectSchema } from "../api/schema/meta.js";
import { defineKind } from "../kinds/define.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { storageWith } from "../testing/storage-with.js";
import { AdmissionChain } from "./admission.js";
import type { WriteOptions } from "./options.js";
import { defaultWriteOptions } from "./options.js";
import type { RequestContext, UserInfo } from "./request-context.js";
import type { ResourceType } from "./resource-type.js";
import { Store } from "./store.js";

// The generic Store over a real SQLite `:memory:` database, with a small test kind whose
// strategy and admission record what runs when: the write pipeline's order is pinned here.

const WidgetSpec = Type.Object({ size: Type.Optional(Type.Integer()), color: Type.Optional(Type.String()) });
const WidgetStatus = Type.Object({ phase: Type.Optional(Type.String()) });

const ALICE: UserInfo = { name: "alice", subjectKind: "User", groups: [], teams: [] };

interface Harness {
  store: Store;
  storage: Storage;
  trace: string[];
  ctx(): RequestContext;
}

/** What the admission chain of the harness does: records its calls, and refuses when asked to. */
interface AdmissionScript {
  /** Field errors the mutating phase reports (they join the validation errors: one 422). */
  admitErrors?: (obj: KubeObject) => string[];
  /** A refusal of the validating phase (thrown as is). */
  refuse?: (obj: KubeObject) => ApiError | undefined;
}

function widgetKind(trace: string[]): ResourceType {
  return defineKind({
    kind: "Widget",
    plural: "widgets",
    singular: "widget",
    shortNames: [],
    namespaced: false,
    hasStatus: true,
    description: "A test kind.",
    schema: objectSchema("Widget", "A test kind.", WidgetSpec, WidgetStatus),
    columns: [],
    strategy: {
      prepareForCreate(obj) {
        trace.push("prepareForCreate");
        obj.spec ??= {};
        obj.spec.color ??= "blue";
      },
      prepareForUpdate(obj) {
        trace.push("prepareForUpdate");
        obj.spec ??= {};
        obj.spec.color ??= "blue";
      },
      validate(obj) {
        trace.push("validate");
        const size = obj.spec?.size;
        return [
          ...(typeof size === "number" && size < 0
            ? [fieldError("FieldValueInvalid", "spec.size", "must be 0 or more", size)]
            : []),
          ...(obj.spec?.color === "invisible"
            ? [fieldError("FieldValueInvalid", "spec.color", "must be seen", obj.spec.color)]
            : []),
        ];
      },
      warnings: (obj) => (obj.spec?.size === 13 ? ["13 is unlucky"] : []),
    },
  });
}

function harness(
  script: AdmissionScript = {},
  storage: Storage = openSqliteStorage(":memory:"),
  kind: (trace: string[]) => ResourceType = widgetKind,
): Harness {
  const trace: string[] = [];
  const rt = kind(trace);
  const admission = new AdmissionChain([
    {
      name: "Recorder",
      admit(attrs) {
        trace.push("admit");
        return (script.admitErrors?.(attrs.object) ?? []).map((m) => fieldError("FieldValueForbidden", "spec", m));
      },
      validate(attrs) {
        trace.push("validateAdmission");
        const refusal = script.refuse?.(attrs.object);
        if (refusal) throw refusal;
      },
    },
  ]);
  const store = new Store(rt, { storage, admission });
  const ctx = (): RequestContext => ({ user: ALICE, warnings: [] });
  return { store, storage, trace, ctx };
}

const opts = (more: Partial<WriteOptions> = {}): WriteOptions => ({ ...defaultWriteOptions("test"), ...more });

function widget(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "management.platform/v1", kind: "Widget", metadata: { name }, spec };
}

async function rejects(p: Promise<unknown>, reason: string, code?: number): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    const e = err as ApiError;
    assert.equal(e.reason, reason, e.message);
    if (code !== undefined) assert.equal(e.code, code);
    return e;
  }
  assert.fail(`expected ${reason}`);
}

describe("Store create", () => {
  it("runs admission, prepare, validation and validating admission in that order, then writes", async () => {
    const h = harness();
    const created = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    assert.deepEqual(h.trace, ["admit", "prepareForCreate", "validate", "validateAdmission"]);
    assert.equal(created.spec?.color, "blue");
    assert.ok(created.metadata.uid);
    assert.ok(created.metadata.creationTimestamp);
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.status, {});
    const stored = await h.store.read(undefined, "a");
    assert.equal(stored?.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(stored?.spec?.color, "blue");
  });

  it("reports field errors of mutating admission together with the strategy's in one 422", async () => {
    const h = harness({ admitErrors: (o) => (o.spec?.color === "red" ? ["no red"] : []) });
    const err = await rejects(
      h.store.create(h.ctx(), undefined, widget("a", { size: -1, color: "red" }), opts()),
      "Invalid",
      422,
    );
    const causes = (err.status.details?.causes ?? []).map((c) => c.field);
    assert.deepEqual(causes.sort(), ["spec", "spec.size"]);
    // The validating admission does not run on an invalid object; nothing is stored.
    assert.deepEqual(h.trace, ["admit", "prepareForCreate", "validate"]);
    assert.equal(await h.store.read(undefined, "a"), undefined);
  });

  it("a refusal of the validating admission leaves nothing stored", async () => {
    const h = harness({ refuse: (o) => (o.spec?.size === 7 ? errors.forbiddenMessage("no sevens") : undefined) });
    await rejects(h.store.create(h.ctx(), undefined, widget("a", { size: 7 }), opts()), "Forbidden", 403);
    assert.equal(await h.store.read(undefined, "a"), undefined);
  });

  it("dry-run runs the whole pipeline but writes nothing", async () => {
    const h = harness();
    const shown = await h.store.create(h.ctx(), undefined, widget("a", { size: 2 }), opts({ dryRun: true }));
    assert.equal(shown.spec?.color, "blue");
    assert.deepEqual(h.trace, ["admit", "prepareForCreate", "validate", "validateAdmission"]);
    assert.equal(await h.store.read(undefined, "a"), undefined);
  });

  it("generateName picks a free name; a taken plain name is 409 AlreadyExists", async () => {
    const h = harness();
    const body = { ...widget(""), metadata: { generateName: "w-" } };
    const one = await h.store.create(h.ctx(), undefined, body, opts());
    const two = await h.store.create(h.ctx(), undefined, body, opts());
    assert.match(one.metadata.name ?? "", /^w-[a-z0-9]{5}$/);
    assert.notEqual(one.metadata.name, two.metadata.name);
    await h.store.create(h.ctx(), undefined, widget("taken"), opts());
    await rejects(h.store.create(h.ctx(), undefined, widget("taken"), opts()), "AlreadyExists", 409);
  });

  it("checks the body against the endpoint and the schema before anything runs", async () => {
    const h = harness();
    await rejects(h.store.create(h.ctx(), undefined, { ...widget("a"), kind: "Gadget" }, opts()), "BadRequest", 400);
    await rejects(h.store.create(h.ctx(), undefined, widget("a", { size: "big" }), opts()), "Invalid", 422);
    await rejects(
      h.store.create(h.ctx(), undefined, widget("a", { shape: "round" }), opts({ fieldValidation: "Strict" })),
      "BadRequest",
      400,
    );
    // No admission plugin runs on a body its schema refuses; the kind's own rules do (on a copy).
    assert.deepEqual(h.trace, ["prepareForCreate", "validate"]);
    const ctx = h.ctx();
    await h.store.create(ctx, undefined, widget("a", { shape: "round", size: 13 }), opts({ fieldValidation: "Warn" }));
    assert.deepEqual(ctx.warnings, ['unknown field "spec.shape"', "13 is unlucky"]);
    assert.equal((await h.store.read(undefined, "a"))?.spec?.shape, undefined);
  });
});

describe("Store: a body its schema refuses", () => {
  const fieldsOf = (err: ApiError) => (err.status.details?.causes ?? []).map((c) => `${c.field} ${c.reason}`);

  it("gets every field error at once: metadata's, the schema's, then the kind's own, as kube lists them", async () => {
    const h = harness();
    const body = widget("Bad_Name", { size: "big", color: "invisible" });
    const err = await rejects(h.store.create(h.ctx(), undefined, body, opts()), "Invalid", 422);
    assert.deepEqual(fieldsOf(err), [
      "metadata.name FieldValueInvalid",
      "spec.size FieldValueTypeInvalid",
      "spec.color FieldValueInvalid",
    ]);
    assert.match(err.message, /^Widget\.management\.platform "Bad_Name" is invalid: \[metadata\.name: Invalid value/);
    // Admission plugins, which read other objects, are not asked; nothing is stored.
    assert.ok(!h.trace.includes("admit"));
    assert.equal(await h.store.read(undefined, "Bad_Name"), undefined);
  });

  it("an update too: metadata's errors with the schema's", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a"), opts());
    const body = { ...a, metadata: { ...a.metadata, labels: { "bad key!": "v" } }, spec: { size: "big" } };
    const err = await rejects(h.store.update(h.ctx(), undefined, "a", body, opts()), "Invalid", 422);
    assert.deepEqual(fieldsOf(err), ["metadata.labels FieldValueInvalid", "spec.size FieldValueTypeInvalid"]);
  });

  it("an update lists the rules that compare with the stored object too, after the schema's errors", async () => {
    const h = harness({}, undefined, colorFixedKind);
    const a = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    const bad = { metadata: { labels: { "bad key!": "v" } }, spec: { size: "big", color: "red" } };
    const put = { ...a, metadata: { ...a.metadata, ...bad.metadata }, spec: bad.spec };
    const byPut = await rejects(h.store.update(h.ctx(), undefined, "a", put, opts()), "Invalid", 422);
    const byPatch = await rejects(h.store.patch(h.ctx(), undefined, "a", "merge", bad, opts()), "Invalid", 422);
    for (const err of [byPut, byPatch]) {
      assert.deepEqual(fieldsOf(err), [
        "metadata.labels FieldValueInvalid",
        "spec.size FieldValueTypeInvalid",
        "spec.color FieldValueInvalid",
      ]);
    }
    assert.equal((await h.store.read(undefined, "a"))?.spec?.color, "blue");
  });

  it("a generated name is checked as create checks it; a create-only kind's metadata not at all", async () => {
    const h = harness();
    const generated = { ...widget(""), metadata: { generateName: "ok-" }, spec: { size: "big" } };
    const err = await rejects(h.store.create(h.ctx(), undefined, generated, opts()), "Invalid", 422);
    assert.deepEqual(fieldsOf(err), ["spec.size FieldValueTypeInvalid"]);
    const v = harness({}, undefined, virtualWidgetKind);
    const virtual = await rejects(
      v.store.createVirtual(v.ctx(), undefined, widget("", { size: "big" }), opts()),
      "Invalid",
      422,
    );
    assert.deepEqual(fieldsOf(virtual), ["spec.size FieldValueTypeInvalid"]);
  });

  it("a kind's rule that cannot read what the schema refused leaves the answer a 422 of the schema's errors", async () => {
    const fragile = (trace: string[]): ResourceType => {
      const rt = widgetKind(trace);
      // Written for the schema's shape: reads spec.size as a number.
      const validate = (obj: KubeObject) =>
        (obj.spec as { size: number }).size.toFixed().length > 3
          ? [fieldError("FieldValueInvalid", "spec.size", "too large")]
          : [];
      return { ...rt, strategy: { ...rt.strategy, validate } };
    };
    const h = harness({}, undefined, fragile);
    const err = await rejects(h.store.create(h.ctx(), undefined, widget("a", { size: "big" }), opts()), "Invalid", 422);
    assert.deepEqual(fieldsOf(err), ["spec.size FieldValueTypeInvalid"]);
  });
});

/** The test kind with a field that may not change once set (a rule that needs the stored object). */
function colorFixedKind(trace: string[]): ResourceType {
  const rt = widgetKind(trace);
  const validateUpdate = (obj: KubeObject, old: KubeObject) =>
    obj.spec?.color === old.spec?.color
      ? []
      : [fieldError("FieldValueInvalid", "spec.color", "field is immutable", obj.spec?.color)];
  return { ...rt, strategy: { ...rt.strategy, validateUpdate } };
}

/** The test kind as a create-only kind (like selves, tokens and reviews): its answer is computed. */
function virtualWidgetKind(trace: string[]): ResourceType {
  return {
    ...widgetKind(trace),
    verbs: ["create"],
    hasStatus: false,
    async virtualCreate(body) {
      trace.push("virtualCreate");
      return { ...body, status: { phase: `answered ${String(body.spec?.color)}` } };
    },
  };
}

describe("Store createVirtual", () => {
  it("runs the same pipeline, the answer computed in place of the write; nothing is stored", async () => {
    const h = harness({}, undefined, virtualWidgetKind);
    const answer = await h.store.createVirtual(h.ctx(), undefined, widget("", { size: 1 }), opts());
    assert.deepEqual(h.trace, ["admit", "prepareForCreate", "validate", "validateAdmission", "virtualCreate"]);
    assert.equal(answer.status?.phase, "answered blue");
    assert.deepEqual((await h.storage.list("/", {})).items, []);
  });

  it("refuses what the body check, validation or admission refuses, before the answer", async () => {
    const refuse = (o: KubeObject) => (o.spec?.size === 7 ? errors.forbiddenMessage("no sevens") : undefined);
    const h = harness(
      { admitErrors: (o) => (o.spec?.color === "red" ? ["no red"] : []), refuse },
      undefined,
      virtualWidgetKind,
    );
    await rejects(h.store.createVirtual(h.ctx(), undefined, { ...widget(""), kind: "Gadget" }, opts()), "BadRequest");
    await rejects(h.store.createVirtual(h.ctx(), undefined, widget("", { size: "big" }), opts()), "Invalid", 422);
    const invalid = await rejects(
      h.store.createVirtual(h.ctx(), undefined, widget("", { size: -1, color: "red" }), opts()),
      "Invalid",
      422,
    );
    assert.deepEqual((invalid.status.details?.causes ?? []).map((c) => c.field).sort(), ["spec", "spec.size"]);
    await rejects(h.store.createVirtual(h.ctx(), undefined, widget("", { size: 7 }), opts()), "Forbidden", 403);
    assert.ok(!h.trace.includes("virtualCreate"));
  });

  it("a kind that is stored is not answered this way", async () => {
    const h = harness();
    await rejects(h.store.createVirtual(h.ctx(), undefined, widget("a"), opts()), "MethodNotAllowed", 405);
  });
});

describe("Store update and patch", () => {
  it("update runs the same pipeline with the old object, bumps generation on a spec change", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    h.trace.length = 0;
    const b = await h.store.update(h.ctx(), undefined, "a", { ...a, spec: { size: 2 } }, opts());
    assert.deepEqual(h.trace, ["admit", "prepareForUpdate", "validate", "validateAdmission"]);
    assert.equal(b.metadata.generation, 2);
    assert.equal(b.spec?.color, "blue");
    assert.equal(b.metadata.uid, a.metadata.uid);
    // A stale resourceVersion is a 409 Conflict, never retried.
    await rejects(h.store.update(h.ctx(), undefined, "a", { ...a, spec: { size: 3 } }, opts()), "Conflict", 409);
  });

  it("an update without a resourceVersion is NotFound for a missing object, Invalid for an existing one", async () => {
    // kube-apiserver reads the object before it asks for a resourceVersion (the compatibility oracle).
    const h = harness();
    await rejects(h.store.update(h.ctx(), undefined, "gone", widget("gone"), opts()), "NotFound", 404);
    await h.store.create(h.ctx(), undefined, widget("here"), opts());
    const invalid = await rejects(h.store.update(h.ctx(), undefined, "here", widget("here"), opts()), "Invalid", 422);
    assert.deepEqual(
      invalid.status.details?.causes?.map((c) => c.field),
      ["metadata.resourceVersion"],
    );
  });

  // kube-apiserver makes the uid a replace carries a precondition, checked on the stored object
  // before the resourceVersion and the schema: an old copy never overwrites an object made anew.
  it("an update carrying another uid is a Conflict on the uid, before its resourceVersion and its schema", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    const precondition = (uid: string, dryRun = false) =>
      `Operation cannot be fulfilled on widgets.management.platform "a": StorageError: invalid object, Code: 4, ` +
      `Key: ${dryRun ? "" : "/registry"}/management.platform/widgets/a, ResourceVersion: 0, ` +
      `AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${a.metadata.uid}`;
    const other = (metadata: Record<string, unknown>, spec: Record<string, unknown> = { size: 2 }) => ({
      ...a,
      metadata: { ...a.metadata, uid: "other", ...metadata },
      spec,
    });
    const bodies = [
      other({}),
      other({ resourceVersion: undefined }),
      other({ resourceVersion: "1" }),
      other({}, { size: "two" }),
    ];
    for (const body of bodies) {
      const refused = await rejects(h.store.update(h.ctx(), undefined, "a", body, opts()), "Conflict", 409);
      assert.equal(refused.message, precondition("other"), JSON.stringify(body));
    }
    const dryRun = await rejects(
      h.store.update(h.ctx(), undefined, "a", other({}), opts({ dryRun: true })),
      "Conflict",
    );
    assert.equal(dryRun.message, precondition("other", true));
    const status = await rejects(h.store.update(h.ctx(), undefined, "a", other({}), opts(), "status"), "Conflict");
    assert.equal(status.message, precondition("other"));
    const same = await h.store.update(h.ctx(), undefined, "a", { ...a, spec: { size: 2 } }, opts());
    assert.equal(same.spec?.size, 2, "the object's own uid is no obstacle");
    const patched = await rejects(
      h.store.patch(h.ctx(), undefined, "a", "merge", { metadata: { uid: "other" } }, opts()),
      "Invalid",
      422,
    );
    assert.deepEqual(
      patched.status.details?.causes?.map((c) => c.field),
      ["metadata.uid"],
      "a patch changing the uid is refused as changing an immutable field",
    );
  });

  it("a generateName that makes no valid name is reported on generateName too, as kube does", async () => {
    const h = harness();
    const generated = { ...widget(""), metadata: { generateName: "Bad_" } };
    const invalid = await rejects(h.store.create(h.ctx(), undefined, generated, opts()), "Invalid", 422);
    assert.deepEqual([...new Set(invalid.status.details?.causes?.map((c) => c.field))].sort(), [
      "metadata.generateName",
      "metadata.name",
    ]);
    const fine = await h.store.create(h.ctx(), undefined, { ...widget(""), metadata: { generateName: "ok-" } }, opts());
    assert.match(fine.metadata.name ?? "", /^ok-[a-z0-9]{5}$/);
  });

  it("an update that changes nothing writes nothing", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    const same = await h.store.update(h.ctx(), undefined, "a", structuredClone(a), opts());
    assert.equal(same.metadata.resourceVersion, a.metadata.resourceVersion);
  });

  it("the status subresource changes status only, without mutating admission or prepare", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    h.trace.length = 0;
    const b = await h.store.update(
      h.ctx(),
      undefined,
      "a",
      { ...a, spec: { size: 99 }, status: { phase: "Ready" } },
      opts(),
      "status",
    );
    assert.deepEqual(h.trace, ["validate", "validateAdmission"]);
    assert.equal(b.spec?.size, 1);
    assert.deepEqual(b.status, { phase: "Ready" });
    assert.equal(b.metadata.generation, 1);
  });

  it("a patch is retried on a write conflict and applied to the newest object", async () => {
    const inner = openSqliteStorage(":memory:");
    let interfere = false;
    // A storage whose next update loses a race: another writer changes the object first.
    const racing = storageWith<Storage>(inner, {
      update: async (key: string, value: Buffer, rev: number) => {
        if (interfere) {
          interfere = false;
          const kv = (await inner.get(key))!;
          const other = JSON.parse(kv.value.toString("utf8")) as KubeObject;
          other.spec = { ...other.spec, color: "green" };
          await inner.update(key, Buffer.from(JSON.stringify(other)), kv.modRevision);
        }
        return inner.update(key, value, rev);
      },
    });
    const h = harness({}, racing);
    await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    interfere = true;
    const patched = await h.store.patch(h.ctx(), undefined, "a", "merge", { spec: { size: 5 } }, opts());
    assert.equal(interfere, false, "the race happened");
    assert.equal(patched.spec?.size, 5);
    assert.equal(patched.spec?.color, "green", "the retry started from the other writer's object");

    // guaranteedUpdate (controllers' writes) retries the same way.
    interfere = true;
    const updated = await h.store.guaranteedUpdate(h.ctx(), undefined, "a", (o) => {
      o.spec = { ...o.spec, size: 6 };
      return o;
    });
    assert.equal(interfere, false);
    assert.equal(updated?.spec?.size, 6);
    assert.equal(updated?.spec?.color, "green");

    // A patch that names a resourceVersion is a precondition: not retried.
    const current = (await h.store.read(undefined, "a"))!;
    interfere = true;
    await rejects(
      h.store.patch(
        h.ctx(),
        undefined,
        "a",
        "merge",
        { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { size: 8 } },
        opts(),
      ),
      "Conflict",
      409,
    );
  });

  it("a patch goes through admission and validation too", async () => {
    const h = harness({ refuse: (o) => (o.spec?.size === 7 ? errors.forbiddenMessage("no sevens") : undefined) });
    await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    await rejects(h.store.patch(h.ctx(), undefined, "a", "merge", { spec: { size: -1 } }, opts()), "Invalid", 422);
    await rejects(h.store.patch(h.ctx(), undefined, "a", "merge", { spec: { size: 7 } }, opts()), "Forbidden", 403);
    assert.equal((await h.store.read(undefined, "a"))?.spec?.size, 1);
    await rejects(h.store.patch(h.ctx(), undefined, "missing", "merge", { spec: {} }, opts()), "NotFound", 404);
  });

  it("dry-run update and patch write nothing", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    const dry = opts({ dryRun: true });
    assert.equal((await h.store.update(h.ctx(), undefined, "a", { ...a, spec: { size: 2 } }, dry)).spec?.size, 2);
    assert.equal((await h.store.patch(h.ctx(), undefined, "a", "merge", { spec: { size: 3 } }, dry)).spec?.size, 3);
    const stored = await h.store.read(undefined, "a");
    assert.equal(stored?.spec?.size, 1);
    assert.equal(stored?.metadata.resourceVersion, a.metadata.resourceVersion);
  });
});

describe("Store delete", () => {
  it("removes an object without finalizers; a dry-run delete keeps it", async () => {
    const h = harness();
    await h.store.create(h.ctx(), undefined, widget("a"), opts());
    const dry = await h.store.delete(h.ctx(), undefined, "a", { dryRun: true });
    assert.equal(dry.removed, true);
    assert.ok(await h.store.read(undefined, "a"));
    const done = await h.store.delete(h.ctx(), undefined, "a", { dryRun: false });
    assert.equal(done.removed, true);
    assert.equal(await h.store.read(undefined, "a"), undefined);
    await rejects(h.store.delete(h.ctx(), undefined, "a", { dryRun: false }), "NotFound", 404);
  });

  it("a finalizer keeps the object terminating until an update removes it", async () => {
    const h = harness();
    await h.store.create(
      h.ctx(),
      undefined,
      { ...widget("a"), metadata: { name: "a", finalizers: ["example.com/hold"] } },
      opts(),
    );
    const first = await h.store.delete(h.ctx(), undefined, "a", { dryRun: false });
    assert.equal(first.removed, false);
    assert.ok(first.object.metadata.deletionTimestamp);
    const terminating = (await h.store.read(undefined, "a"))!;
    assert.ok(terminating.metadata.deletionTimestamp);
    // A terminating object takes no new finalizers.
    await rejects(
      h.store.update(
        h.ctx(),
        undefined,
        "a",
        { ...terminating, metadata: { ...terminating.metadata, finalizers: ["example.com/hold", "more"] } },
        opts(),
      ),
      "Invalid",
      422,
    );
    await h.store.update(
      h.ctx(),
      undefined,
      "a",
      { ...terminating, metadata: { ...terminating.metadata, finalizers: [] } },
      opts(),
    );
    assert.equal(await h.store.read(undefined, "a"), undefined, "gone with its last finalizer");
  });

  it("runs the validating admission on the stored object; a refusal keeps it", async () => {
    let refusing = false;
    const h = harness({ refuse: () => (refusing ? errors.forbiddenMessage("not now") : undefined) });
    await h.store.create(h.ctx(), undefined, widget("a", { size: 1 }), opts());
    await h.store.create(h.ctx(), undefined, widget("b", { size: 2 }), opts());
    refusing = true;
    await rejects(h.store.delete(h.ctx(), undefined, "a", { dryRun: false }), "Forbidden", 403);
    assert.ok(await h.store.read(undefined, "a"));
    refusing = false;
    h.trace.length = 0;
    await h.store.delete(h.ctx(), undefined, "b", { dryRun: false });
    assert.deepEqual(h.trace, ["validateAdmission"]);
    assert.equal(await h.store.read(undefined, "b"), undefined);
  });

  it("checks uid and resourceVersion preconditions, in kube-apiserver's words", async () => {
    const h = harness();
    const a = await h.store.create(h.ctx(), undefined, widget("a"), opts());
    const refused = (preconditions: { uid?: string; resourceVersion?: string }) =>
      rejects(h.store.delete(h.ctx(), undefined, "a", { dryRun: false, preconditions }), "Conflict", 409);
    const uidRefusal = (uid: string) =>
      `Operation cannot be fulfilled on Widget.management.platform "a": the UID in the precondition (${uid}) does not ` +
      `match the UID in record (${a.metadata.uid}). The object might have been deleted and then recreated`;
    const wrongUid = await refused({ uid: "other", resourceVersion: "999999" });
    assert.equal(wrongUid.message, uidRefusal("other"), "the uid is checked first");
    assert.deepEqual(wrongUid.status.details, { name: "a", group: "management.platform", kind: "Widget" });
    assert.equal((await refused({ uid: "" })).message, uidRefusal(""), "an empty uid is a precondition too");
    for (const resourceVersion of ["999999", ""]) {
      assert.equal(
        (await refused({ resourceVersion })).message,
        `Operation cannot be fulfilled on Widget.management.platform "a": the ResourceVersion in the precondition ` +
          `(${resourceVersion}) does not match the ResourceVersion in record (${a.metadata.resourceVersion}). ` +
          "The object might have been modified",
      );
    }
    const ok = await h.store.delete(h.ctx(), undefined, "a", {
      dryRun: false,
      preconditions: { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion },
    });
    assert.equal(ok.removed, true);
  });
});
