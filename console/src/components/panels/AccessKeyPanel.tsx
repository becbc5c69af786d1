import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { expiryOf, scopeOf } from "../../api/access-key-facts";
import { describeError } from "../../api/client";
import { patchObject } from "../../api/resources";
import type { KubeObject } from "../../api/types";
import { kindOf } from "../../kinds";
import { useCan } from "../../permissions";

/** An access key's type, expiry, last use and scope, and switching it off and on. */
export function AccessKeyPanel({ accessKey }: { accessKey: KubeObject }) {
  const name = accessKey.metadata.name ?? "";
  const canPatch = useCan("patch", "ownedaccesskeys", { name });
  const queryClient = useQueryClient();
  const [error, setError] = useState("");
  const [message, setMessage] = useState("");
  const disabled = accessKey.spec?.disabled === true;
  const toggle = async () => {
    setError("");
    setMessage("");
    try {
      await patchObject(kindOf("ownedaccesskeys")!, name, undefined, { spec: { disabled: disabled ? null : true } });
      await queryClient.invalidateQueries({ queryKey: ["object", "ownedaccesskeys"] });
      setMessage(disabled ? "Key enabled: it signs in again." : "Key disabled: it no longer signs in.");
    } catch (err) {
      setError(describeError(err));
    }
  };
  const owner = accessKey.spec?.user
    ? `user ${accessKey.spec.user}`
    : accessKey.spec?.team
      ? `team ${accessKey.spec.team}`
      : `subject ${accessKey.spec?.subject ?? ""}`;
  return (
    <>
      <h2>Key</h2>
      <dl className="facts">
        <Fact label="State" value={disabled ? "disabled: does not sign in" : "enabled"} />
        <Fact label="Type" value={String(accessKey.spec?.type || "User")} />
        <Fact label="Belongs to" value={owner} />
        <Fact label="Expires" value={expiryOf(accessKey)} />
        <Fact
          label="Last used"
          value={String(accessKey.status?.lastActivity ?? "never")
            .replace("T", " ")
            .replace("Z", " UTC")}
        />
        <Fact label="Reaches" value={scopeOf(accessKey)} />
      </dl>
      {canPatch && (
        <button type="button" onClick={toggle}>
          {disabled ? "Enable key" : "Disable key"}
        </button>
      )}
      {message && <p role="status">{message}</p>}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
