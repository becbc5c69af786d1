import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EXEC_CREDENTIAL_VERSION, execCredentialVersion } from "./token.js";

describe("platform token's ExecCredential version", () => {
  it("answers in the version kubectl asks for in KUBERNETES_EXEC_INFO (the kubeconfig's)", () => {
    for (const v of ["v1", "v1beta1", "v1alpha1"]) {
      const apiVersion = `client.authentication.k8s.io/${v}`;
      assert.equal(execCredentialVersion(JSON.stringify({ apiVersion, kind: "ExecCredential" })), apiVersion);
    }
  });

  it("v1beta1, which every kubectl since 1.11 reads, when run by hand or asked for something unknown", () => {
    assert.equal(EXEC_CREDENTIAL_VERSION, "client.authentication.k8s.io/v1beta1");
    assert.equal(execCredentialVersion(undefined), EXEC_CREDENTIAL_VERSION);
    assert.equal(execCredentialVersion("not json"), EXEC_CREDENTIAL_VERSION);
    assert.equal(execCredentialVersion(JSON.stringify({ apiVersion: "example.com/v9" })), EXEC_CREDENTIAL_VERSION);
  });
});
