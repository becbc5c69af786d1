/**
 * Rules the platform checks in code (a kind's validation, an admission plugin) rather than in the
 * schema its OpenAPI document publishes, declared to kube-apiserver as a CRD author would: an
 * `enum`, or a CEL rule (`x-kubernetes-validations`) on the field the platform names. kube-apiserver
 * then refuses the same writes itself, in its own words, and the oracle's cases in
 * corpus-kube-words.ts compare the two answers whole.
 */

type Json = Record<string, unknown>;

interface RuleInCode {
  kind: string;
  /** Property names from the root of the kind's schema to the schema the rule goes on; `[]` steps into a list's items. */
  path: string[];
  /** Merged into that schema. */
  add: Json;
}

/**
 * The detail of the ProjectSecretSource plugin's refusal, written again as the CEL rule's message:
 * kube-apiserver adds the field and the `Forbidden:` wording itself, which is what is compared.
 */
const PROJECT_SECRET_SOURCE_DETAIL =
  "is kept equal to spec.source by the platform; remove spec.source to write the data";

const RULES: RuleInCode[] = [
  // The Project kind's validation: a member is a User or a Team.
  { kind: "Project", path: ["spec", "members", "[]", "kind"], add: { enum: ["User", "Team"] } },
  // The ProjectSecretSource admission plugin: a project secret created with a source carries no data of its own.
  {
    kind: "ProjectSecret",
    path: ["spec"],
    add: {
      "x-kubernetes-validations": [
        {
          rule: "!has(self.source) || !has(self.data) || size(self.data) == 0",
          fieldPath: ".data",
          reason: "FieldValueForbidden",
          message: PROJECT_SECRET_SOURCE_DETAIL,
        },
      ],
    },
  },
];

/** `crds` (made by crdsFromPlatform) with the rules above added to their schemas, in place. */
export function withRulesCheckedInCode(crds: Json[]): Json[] {
  for (const rule of RULES) {
    const crd = crds.find((c) => (c.spec as { names: { kind: string } }).names.kind === rule.kind);
    if (!crd) throw new Error(`no CRD of kind ${rule.kind} to add a rule to`);
    const versions = (crd.spec as { versions: { schema: { openAPIV3Schema: Json } }[] }).versions;
    for (const version of versions) Object.assign(schemaAt(version.schema.openAPIV3Schema, rule), rule.add);
  }
  return crds;
}

function schemaAt(root: Json, rule: RuleInCode): Json {
  let schema = root;
  for (const step of rule.path) {
    const next = step === "[]" ? schema.items : (schema.properties as Record<string, unknown> | undefined)?.[step];
    if (!next || typeof next !== "object") throw new Error(`${rule.kind}: no schema at ${rule.path.join(".")}`);
    schema = next as Json;
  }
  return schema;
}
