import { useState } from "react";
import type { KubeObject } from "../../api/types";
import { fromBase64 } from "../../pages/EditPage";

/** Values stay hidden until "reveal"; the server leaves them out for callers who may not read them. */
export function SecretValues({ secret }: { secret: KubeObject }) {
  const [shown, setShown] = useState(false);
  const data = secret.spec?.data as Record<string, string> | undefined;
  return (
    <>
      <h2>Values</h2>
      {!data ? (
        <p>No values you may read.</p>
      ) : (
        <>
          <button type="button" onClick={() => setShown(!shown)} aria-pressed={shown}>
            {shown ? "Hide values" : "Reveal values"}
          </button>
          <dl className="facts">
            {Object.entries(data).map(([k, v]) => (
              <div key={k}>
                <dt className="mono">{k}</dt>
                <dd className="mono">{shown ? decode(v) : "••••••••"}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </>
  );
}

function decode(v: string): string {
  try {
    return fromBase64(v);
  } catch {
    return v;
  }
}
