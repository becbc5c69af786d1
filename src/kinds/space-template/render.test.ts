// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are space template references
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveParameters } from "../template-parameters/parameters.js";
import { UnrenderableTemplate } from "../template-parameters/substitution.js";
import { fillPlaceholders } from "./render.js";
import { validateSpaceBody } from "./space-body.js";

describe("space template references", () => {
  it("a whole-string reference takes the value's type; inside text it is text; $${ stays literal", () => {
    const filled = fillPlaceholders(
      {
        spec: {
          replicas: "${params.n}",
          on: "${params.flag}",
          name: "${space.name}-cfg",
          script: "echo $${HOME} ${ params.n }",
        },
        list: ["${space.project}", "${space.namespace | base64}"],
      },
      { "params.n": 3, "params.flag": false, "space.name": "web", "space.project": "p1", "space.namespace": "ns" },
    );
    assert.deepEqual(filled, {
      spec: { replicas: 3, on: false, name: "web-cfg", script: "echo ${HOME} 3" },
      list: ["p1", "bnM="],
    });
  });

  it("a value is data: it adds no field and is never read as a reference", () => {
    const filled = fillPlaceholders({ a: "${params.x}", b: "x ${params.x}" }, { "params.x": "${space.name}\nc: 1" });
    assert.deepEqual(filled, { a: "${space.name}\nc: 1", b: "x ${space.name}\nc: 1" });
  });

  it("refuses to render a reference it has no value for, rather than send it as written", () => {
    assert.throws(() => fillPlaceholders({ a: "${params.gone}" }, {}), UnrenderableTemplate);
  });

  it("checks references when the template is written: parameters by params.<name>, built-ins by space.<field>", () => {
    const body = {
      labels: { tier: "${params.tier}", who: "${space.project}" },
      annotations: { old: "${tier}", proj: "${project}", esc: "$${tier}", bad: "${params.tier | upper}" },
    };
    const errs = validateSpaceBody(body, "spec.template", [{ name: "tier" }]);
    assert.deepEqual(
      errs.map((e) => `${e.field} ${e.type}`),
      [
        "spec.template.annotations.old FieldValueInvalid",
        "spec.template.annotations.proj FieldValueInvalid",
        "spec.template.annotations.bad FieldValueInvalid",
      ],
    );
  });

  it("resolves parameters: given, else default, typed; errors name the instance's field", () => {
    const declared = [
      { name: "pods", type: "number", required: true },
      { name: "on", type: "boolean", default: "true" },
      { name: "note" },
    ];
    const ok = resolveParameters(declared, { pods: "5" }, "spec.parameters");
    assert.deepEqual(ok.errors, []);
    assert.deepEqual(Object.fromEntries(ok.values), { pods: 5, on: true, note: "" });
    const bad = resolveParameters(declared, { on: "yes", extra: "1" }, "spec.parameters");
    assert.deepEqual(
      bad.errors.map((e) => `${e.field} ${e.type}`),
      [
        "spec.parameters.extra FieldValueNotSupported",
        "spec.parameters.pods FieldValueRequired",
        "spec.parameters.on FieldValueInvalid",
      ],
    );
  });
});
