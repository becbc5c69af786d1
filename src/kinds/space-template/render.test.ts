// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are space template placeholders
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveParameters } from "./parameters.js";
import { fillPlaceholders, placeholdersIn } from "./render.js";

describe("space template placeholders", () => {
  it("a whole-string placeholder takes the value's type; inside text it is text; $${ stays literal", () => {
    const filled = fillPlaceholders(
      {
        spec: { replicas: "${n}", on: "${flag}", name: "${space.name}-cfg", script: "echo $${HOME} ${ n }" },
        list: ["${project}"],
      },
      { n: 3, flag: false, "space.name": "web", project: "p1" },
    );
    assert.deepEqual(filled, {
      spec: { replicas: 3, on: false, name: "web-cfg", script: "echo ${HOME} 3" },
      list: ["p1"],
    });
  });

  it("lists the names used, leaving out escaped ones and keys", () => {
    assert.deepEqual([...placeholdersIn({ "${key}": "${a} $${b}", x: ["${c}"] })].sort(), ["a", "c"]);
  });

  it("resolves parameters: given, else default, typed; errors name the instance's field", () => {
    const declared = [
      { name: "pods", type: "number", required: true },
      { name: "on", type: "boolean", default: "true" },
      { name: "note" },
    ];
    assert.deepEqual(resolveParameters(declared, { pods: "5" }, "spec.parameters"), {
      values: { pods: 5, on: true, note: "" },
      errors: [],
    });
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
