// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the template references under test are written ${...}
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldError } from "../../api/errors.js";
import type { KubeObject } from "../../api/object.js";
import { type RenderResult, renderTemplate, type TemplateContent } from "./render.js";
import { validateTemplateContent } from "./template-content.js";
import { compareVersions, findVersion, latestVersion } from "./versions.js";

const INSTANCE = { name: "vc1", project: "alpha", namespace: "p-alpha-v-vc1" };
const CA = { certPem: "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n", keyPem: "KEY" };

/** A config map whose data holds `value` as written (the references under test go there). */
function configMap(data: Record<string, unknown>, name = "cm-${instance.name}") {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

function dataOf(obj: KubeObject | undefined): Record<string, unknown> {
  return (obj?.data ?? {}) as Record<string, unknown>;
}

function objectsOf(result: RenderResult) {
  assert.equal(result.errors, undefined, JSON.stringify(result.errors));
  return result.objects ?? [];
}

function errorsOf(result: RenderResult): FieldError[] {
  assert.ok(result.errors, "expected the render to fail");
  return result.errors;
}

const TYPED: TemplateContent = {
  parameters: [
    { name: "replicas", type: "number", default: "1" },
    { name: "ha", type: "boolean", default: "false" },
    { name: "size", options: ["small", "large"], default: "small" },
    { name: "version", required: true, description: "the image tag" },
    { name: "note" },
  ],
  objects: [
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "${instance.name}", labels: { project: "${instance.project}" } },
      spec: {
        replicas: "${params.replicas}",
        template: {
          spec: { containers: [{ name: "c", image: "img:${params.version}", env: [{ value: "${params.ha}" }] }] },
        },
      },
    },
    configMap({
      size: "${params.size}",
      ha: "ha=${params.ha}",
      note: "${params.note}",
      where: "${instance.namespace}",
    }),
  ],
};

describe("renderTemplate: the objects of one virtual cluster", () => {
  it("substitutes the instance's values and typed parameters, and puts every object in the instance's namespace", () => {
    const [sts, cm] = objectsOf(renderTemplate(TYPED, { version: "0.21.0", replicas: "3", ha: "true" }, INSTANCE, CA));
    assert.equal(sts?.metadata.name, "vc1");
    assert.equal(sts?.metadata.namespace, "p-alpha-v-vc1");
    assert.deepEqual(sts?.metadata.labels, { project: "alpha" });
    // A reference alone takes the parameter's type; inside text it is text.
    assert.equal(sts?.spec?.replicas, 3);
    const template = sts?.spec?.template as {
      spec: { containers: Array<{ image: string; env: Array<{ value: unknown }> }> };
    };
    const container = template.spec.containers[0];
    assert.equal(container?.image, "img:0.21.0");
    assert.equal(container?.env[0]?.value, true);
    assert.deepEqual(cm?.data, { size: "small", ha: "ha=true", note: "", where: "p-alpha-v-vc1" });
    assert.equal(cm?.metadata.name, "cm-vc1");
  });

  it("leaves the template it was given as it was", () => {
    const before = structuredClone(TYPED);
    renderTemplate(TYPED, { version: "1" }, INSTANCE, CA);
    assert.deepEqual(TYPED, before);
  });

  it("writes the CA, base64-encoded when asked, where the template says", () => {
    const content = {
      objects: [configMap({ crt: "${ca.crt | base64}", key: "${ ca.key|base64 }", pem: "${ca.crt}" })],
    };
    const [cm] = objectsOf(renderTemplate(content, undefined, INSTANCE, CA));
    assert.equal(Buffer.from(String(dataOf(cm).crt), "base64").toString(), CA.certPem);
    assert.equal(Buffer.from(String(dataOf(cm).key), "base64").toString(), "KEY");
    assert.equal(dataOf(cm).pem, CA.certPem);
  });

  it("a missing required parameter, a wrong type, a value not among the options and an unknown parameter are field errors naming it", () => {
    const errs = errorsOf(
      renderTemplate(TYPED, { replicas: "three", ha: "yes", size: "medium", colour: "blue" }, INSTANCE, CA),
    );
    const byField = new Map(errs.map((e) => [e.field, e]));
    assert.equal(byField.get("spec.parameters.version")?.type, "FieldValueRequired");
    assert.match(
      byField.get("spec.parameters.version")?.detail ?? "",
      /requires parameter "version" \(the image tag\)/,
    );
    assert.equal(byField.get("spec.parameters.replicas")?.type, "FieldValueInvalid");
    assert.match(byField.get("spec.parameters.replicas")?.detail ?? "", /must be a number/);
    assert.match(byField.get("spec.parameters.ha")?.detail ?? "", /"true" or "false"/);
    assert.equal(byField.get("spec.parameters.size")?.type, "FieldValueNotSupported");
    assert.match(byField.get("spec.parameters.size")?.detail ?? "", /"small", "large"/);
    assert.equal(byField.get("spec.parameters.colour")?.type, "FieldValueNotSupported");
    assert.match(
      byField.get("spec.parameters.colour")?.detail ?? "",
      /its parameters: replicas, ha, size, version, note/,
    );
    assert.equal(errs.length, 5);
  });

  it("numbers are whole or decimal numbers as written, nothing JavaScript would also read as one", () => {
    for (const bad of ["", " 1", "0x10", "1e3", "Infinity", "01", "1.", "+1"]) {
      const errs = errorsOf(renderTemplate(TYPED, { version: "1", replicas: bad }, INSTANCE, CA));
      assert.equal(errs[0]?.field, "spec.parameters.replicas", bad);
    }
    for (const [good, value] of [
      ["0", 0],
      ["-2", -2],
      ["0.5", 0.5],
    ] as const) {
      const [sts] = objectsOf(renderTemplate(TYPED, { version: "1", replicas: good }, INSTANCE, CA));
      assert.equal(sts?.spec?.replicas, value);
    }
  });

  it("a value with quotes, newlines or ${...} stays one string: no field, object or reference comes from it", () => {
    const hostile = [
      "a\"b'c",
      "x\nkind: Secret\nmetadata:\n  name: stolen",
      "${ca.key}",
      "$${ca.key}",
      "}\n- apiVersion: v1",
      "${params.version | base64}",
    ];
    const content = {
      parameters: [{ name: "v" }],
      objects: [configMap({ alone: "${params.v}", inText: "<${params.v}>" })],
    };
    for (const value of hostile) {
      const objects = objectsOf(renderTemplate(content, { v: value }, INSTANCE, CA));
      assert.equal(objects.length, 1);
      assert.deepEqual(objects[0]?.data, { alone: value, inText: `<${value}>` }, value);
      assert.equal(JSON.stringify(objects).includes("KEY"), false, "the CA key never comes out of a value");
    }
  });

  it("$${ writes a literal ${", () => {
    const [cm] = objectsOf(
      renderTemplate({ objects: [configMap({ shell: "echo $${HOME} ${instance.name}" })] }, undefined, INSTANCE, CA),
    );
    assert.equal(dataOf(cm).shell, "echo ${HOME} vc1");
  });

  it("an object whose name renders as no Kubernetes name, and two objects alike, are refused", () => {
    const content = { parameters: [{ name: "suffix" }], objects: [configMap({}, "cm-${params.suffix}")] };
    const bad = errorsOf(renderTemplate(content, { suffix: "Not Valid" }, INSTANCE, CA));
    assert.equal(bad[0]?.field, "spec.parameters");
    assert.match(bad[0]?.detail ?? "", /object 0 of the template \(ConfigMap\) renders the name "cm-Not Valid"/);
    const twice = { objects: [configMap({}, "same"), configMap({ a: "b" }, "same")] };
    assert.match(errorsOf(renderTemplate(twice, undefined, INSTANCE, CA))[0]?.detail ?? "", /ConfigMap "same" twice/);
  });

  it("a template that was never checked (no reference rules when it was stored) is a field error, never a crash", () => {
    for (const bad of ["${params.missing}", "${unclosed"]) {
      const errs = errorsOf(renderTemplate({ objects: [configMap({ a: bad })] }, undefined, INSTANCE, CA));
      assert.equal(errs[0]?.field, "spec");
      assert.match(errs[0]?.detail ?? "", /object 0 of the template does not render: /);
    }
  });

  it("keys named __proto__ stay keys of the rendered object", () => {
    const data = JSON.parse('{"__proto__": "${instance.name}", "x": "y"}');
    const [cm] = objectsOf(renderTemplate({ objects: [configMap(data)] }, undefined, INSTANCE, CA));
    assert.equal(Object.getPrototypeOf(cm?.data), Object.prototype);
    assert.deepEqual(Object.keys(cm?.data ?? {}), ["__proto__", "x"]);
    assert.equal(Object.getOwnPropertyDescriptor(cm?.data, "__proto__")?.value, "vc1");
  });
});

describe("validateTemplateContent: a template is checked when it is written", () => {
  const fields = (content: Partial<TemplateContent>) =>
    validateTemplateContent(content, "spec.versions[0]").map((e) => `${e.field}: ${e.detail}`);

  it("references must parse and name a declared parameter, an instance value or the CA", () => {
    const errs = fields({
      parameters: [{ name: "known" }],
      objects: [
        configMap({
          a: "${params.unknown}",
          b: "${instance.uid}",
          c: "${ca.crt | upper}",
          d: "${open",
          e: "${params.known; rm -rf /}",
          ok: "${params.known} ${instance.project} ${ca.key | base64}",
        }),
      ],
    });
    assert.deepEqual(errs, [
      "spec.versions[0].objects[0].data.a: unknown reference ${params.unknown}",
      "spec.versions[0].objects[0].data.b: unknown reference ${instance.uid}",
      'spec.versions[0].objects[0].data.c: "${ca.crt | upper}": unknown filter "upper" (supported: base64)',
      'spec.versions[0].objects[0].data.d: "${" at position 0 is not closed by "}" (write "$${" for a literal "${")',
      'spec.versions[0].objects[0].data.e: "${params.known; rm -rf /}" is not a reference such as ${params.name} or ${ca.crt | base64}',
    ]);
  });

  it("parameters: names, types, defaults and options are checked", () => {
    const errs = fields({
      parameters: [
        { name: "1st" },
        { name: "dup" },
        { name: "dup" },
        { name: "kind", type: "enum" },
        { name: "count", type: "number" },
        { name: "flag", type: "boolean", default: "yes" },
        { name: "size", default: "huge", options: ["small"] },
        { name: "level", type: "number", default: "1", options: ["1", "high"] },
      ],
      objects: [configMap({})],
    });
    assert.deepEqual(errs, [
      "spec.versions[0].parameters[0].name: letters, digits and _, not starting with a digit",
      "spec.versions[0].parameters[2].name: ",
      'spec.versions[0].parameters[3].type: supported values: "string", "number", "boolean"',
      "spec.versions[0].parameters[4].default: a number parameter needs a default unless it is required",
      'spec.versions[0].parameters[5].default: must be "true" or "false"',
      'spec.versions[0].parameters[6].default: supported values: "small"',
      'spec.versions[0].parameters[7].options[1]: must be a number such as "3" or "0.5"',
    ]);
  });

  it("objects need apiVersion, kind and a name, stay out of other namespaces and off cluster-wide kinds", () => {
    const errs = fields({
      objects: [
        { kind: "ConfigMap", metadata: { name: "a" } },
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b", namespace: "kube-system" } },
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "c" } },
        { apiVersion: "v1", kind: "ConfigMap", metadata: {} },
        "not an object",
      ],
    });
    assert.deepEqual(errs, [
      "spec.versions[0].objects[0].apiVersion: a Kubernetes object needs one",
      "spec.versions[0].objects[1].metadata.namespace: objects go into the instance's namespace on its cluster; leave the namespace out",
      "spec.versions[0].objects[2].kind: a template writes namespaced objects into the instance's namespace only; this kind is cluster-wide",
      "spec.versions[0].objects[3].metadata.name: every object needs a name",
      "spec.versions[0].objects[4]: must be an object",
    ]);
    assert.deepEqual(fields({ objects: [] }), ["spec.versions[0].objects: at least one object"]);
  });
});

describe("template versions", () => {
  const versions = [{ version: "1.2" }, { version: "v1.10.0" }, { version: "1.9.9" }, { version: "0.1" }];

  it("order by number, not by text; 1.2 is 1.2.0", () => {
    assert.ok(compareVersions("1.10", "1.9.9") > 0);
    assert.equal(compareVersions("1.2", "v1.2.0"), 0);
    assert.equal(latestVersion(versions)?.version, "v1.10.0");
  });

  it("absent or latest follows the newest; a pinned one is found by number; an unknown one is not found", () => {
    assert.equal(findVersion(versions)?.version, "v1.10.0");
    assert.equal(findVersion(versions, "latest")?.version, "v1.10.0");
    assert.equal(findVersion(versions, "1.2.0")?.version, "1.2");
    assert.equal(findVersion(versions, "2"), undefined);
    assert.equal(findVersion(versions, "not-a-version"), undefined);
  });
});
