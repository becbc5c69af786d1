import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "../testing/cli-run.js";
import { type TemplateKind, templateChoice } from "./template-options.js";

const VERSIONED: TemplateKind = { templateHelp: "", versioned: true, serverPicksDefault: true };
const UNVERSIONED: TemplateKind = { templateHelp: "", versioned: false, serverPicksDefault: false };

describe("the template options of create vcluster and create space", { timeout: 120_000 }, () => {
  // No login: each refusal comes before the CLI reads its configuration or sends anything.
  const home = mkdtempSync(join(tmpdir(), "platform-template-options-"));
  after(() => rmSync(home, { recursive: true, force: true }));
  const create = (kind: string, ...args: string[]) =>
    runCli(home, ["create", kind, "x", "--project", "web", "--cluster", "c1", ...args]);

  it("--set without = is a usage error naming the option, for both commands", async () => {
    for (const kind of ["vcluster", "space"]) {
      const run = await create(kind, "--template", "t", "--set", "pods");
      assert.equal(run.code, 2, `${kind}: ${run.stderr}`);
      assert.match(run.stderr, /--set must be KEY=VALUE, got "pods"/, kind);
      const noKey = await create(kind, "--template", "t", "--set", "=3");
      assert.equal(noKey.code, 2, `${kind}: ${noKey.stderr}`);
      assert.match(noKey.stderr, /--set must be KEY=VALUE, got "=3"/, kind);
    }
  });

  it("--template-version without --template is refused, not dropped for the project's default template", async () => {
    const run = await create("vcluster", "--template-version", "1.0.0", "--no-wait");
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--template-version pins a version of a template: name the template with --template/);
  });

  it("--set without --template is refused for a space (no default template), and spaces have no versions", async () => {
    const set = await create("space", "--set", "pods=3");
    assert.equal(set.code, 2, set.stderr);
    assert.match(set.stderr, /--set gives a template's parameters: name the template with --template/);
    const version = await create("space", "--template", "small", "--template-version", "1.0.0");
    assert.equal(version.code, 2, version.stderr);
    assert.match(version.stderr, /unknown option '--template-version'/);
  });

  it("reads the options into templateRef and parameters, each only when given", () => {
    assert.deepEqual(templateChoice({}, VERSIONED), {});
    assert.deepEqual(templateChoice({ set: ["serviceType=NodePort"] }, VERSIONED), {
      parameters: { serviceType: "NodePort" },
    });
    assert.deepEqual(
      templateChoice({ template: "default", templateVersion: "1.0.0", set: ["a=1", "b=x=y", "a=2", "c="] }, VERSIONED),
      { templateRef: { name: "default", version: "1.0.0" }, parameters: { a: "2", b: "x=y", c: "" } },
    );
    assert.deepEqual(templateChoice({ template: "small" }, UNVERSIONED), { templateRef: { name: "small" } });
  });
});
