import { useId, useState } from "react";
import { stringify } from "yaml";
import { objectView } from "../api/object-view";
import type { KubeObject } from "../api/types";
import { kindOfObject } from "../kinds";

/** The whole object as YAML: secret values hidden, managedFields only when asked for. */
export function YamlPanel({ o }: { o: KubeObject }) {
  const id = useId();
  const [managedFields, setManagedFields] = useState(false);
  return (
    <details className="yaml-panel">
      <summary>YAML</summary>
      <label className="check" htmlFor={id}>
        <input id={id} type="checkbox" checked={managedFields} onChange={(e) => setManagedFields(e.target.checked)} />
        Show managed fields (who wrote which field)
      </label>
      <pre className="yaml">{stringify(objectView(o, kindOfObject(o)?.secretFields ?? [], { managedFields }))}</pre>
    </details>
  );
}
