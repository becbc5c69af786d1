import { useId } from "react";

export interface AccessRule {
  verbs?: string[];
  users?: string[];
  teams?: string[];
  subresources?: string[];
}

const VERBS = ["get", "list", "watch", "update", "patch", "delete", "use", "bind", "administer", "*"];

const split = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** The access[] rules of an object: who (users, teams) may do which verbs on it. */
export function AccessEditor(props: {
  rules: AccessRule[];
  onChange: (rules: AccessRule[]) => void;
  errors: Map<string, string>;
}) {
  const id = useId();
  const update = (i: number, rule: AccessRule) => props.onChange(props.rules.map((r, j) => (j === i ? rule : r)));
  return (
    <fieldset className="access-editor">
      <legend>Access rules</legend>
      {props.rules.length === 0 && <p className="hint">No rules: only those with a role may use this object.</p>}
      {props.rules.map((rule, i) => {
        const err = props.errors.get(`spec.access[${i}].verbs`) ?? props.errors.get(`spec.access[${i}]`);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rules have no identity but their position
          <div className="rule" key={i}>
            <fieldset>
              <legend>Rule {i + 1}: verbs</legend>
              <div className="verbs">
                {VERBS.map((v) => (
                  <label key={v} className="check">
                    <input
                      type="checkbox"
                      checked={rule.verbs?.includes(v) ?? false}
                      onChange={(e) =>
                        update(i, {
                          ...rule,
                          verbs: e.target.checked
                            ? [...(rule.verbs ?? []), v]
                            : (rule.verbs ?? []).filter((x) => x !== v),
                        })
                      }
                    />
                    {v}
                  </label>
                ))}
              </div>
            </fieldset>
            <label htmlFor={`${id}-u${i}`}>Users (comma separated)</label>
            <input
              id={`${id}-u${i}`}
              value={(rule.users ?? []).join(", ")}
              onChange={(e) => update(i, { ...rule, users: split(e.target.value) })}
            />
            <label htmlFor={`${id}-t${i}`}>Teams (comma separated)</label>
            <input
              id={`${id}-t${i}`}
              value={(rule.teams ?? []).join(", ")}
              onChange={(e) => update(i, { ...rule, teams: split(e.target.value) })}
            />
            {err && <p className="field-error">{err}</p>}
            <button type="button" onClick={() => props.onChange(props.rules.filter((_, j) => j !== i))}>
              Remove rule {i + 1}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => props.onChange([...props.rules, { verbs: ["get"], users: [], teams: [] }])}>
        Add access rule
      </button>
    </fieldset>
  );
}
