import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import type { KindInfo } from "../kinds";

/** Asks before deleting; says what happens to dependents (the propagation policy). */
export function DeleteDialog(props: {
  kind: KindInfo;
  name: string;
  onCancel: () => void;
  onConfirm: (policy: string) => void;
  /** What depends on the object, said before it goes. */
  children?: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [policy, setPolicy] = useState("Background");
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={`${id}-t`} onCancel={props.onCancel} className="dialog">
      <h2 id={`${id}-t`}>
        Delete {props.kind.kind} <span className="mono">{props.name}</span>?
      </h2>
      <p>This cannot be undone.</p>
      {props.children}
      <label htmlFor={`${id}-p`}>Objects it owns</label>
      <select id={`${id}-p`} value={policy} onChange={(e) => setPolicy(e.target.value)}>
        <option value="Background">Background: deleted after it</option>
        <option value="Foreground">Foreground: deleted first, then it</option>
        <option value="Orphan">Orphan: kept</option>
      </select>
      <div className="actions">
        <button type="button" className="danger" onClick={() => props.onConfirm(policy)}>
          Delete
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
