import { useId } from "react";
import type { FieldDef } from "../kinds";

/** A project member as stored; fields the editor does not know are kept as they are. */
type Member = { kind: string; name: string; clusterRole?: string; [other: string]: unknown };

/** What a project member may do, by spec.members[].clusterRole (docs/permissions.md). */
const MEMBER_ROLES: Array<{ value: string; label: string }> = [
  { value: "", label: "Member: manages the project's virtual clusters" },
  { value: "platform-management-admin", label: "Admin: also manages the project" },
  { value: "platform-management-view", label: "Viewer: reads only" },
];

/** Project members, one row each: user or team, name, and role. */
export function MembersInput(props: {
  field: FieldDef;
  value: unknown;
  errors: Map<string, string>;
  onChange: (v: unknown) => void;
}) {
  const id = useId();
  const members = (props.value as Member[] | undefined) ?? [];
  const update = (i: number, change: Partial<Member>) =>
    props.onChange(
      members.map((m, j) => {
        if (j !== i) return m;
        const next: Member = { ...m, ...change };
        if (!next.clusterRole) delete next.clusterRole;
        return next;
      }),
    );
  const roles = (current?: string) =>
    current && !MEMBER_ROLES.some((r) => r.value === current)
      ? [...MEMBER_ROLES, { value: current, label: current }]
      : MEMBER_ROLES;
  return (
    <fieldset className="field members">
      <legend>{props.field.label}</legend>
      {members.length === 0 && <p className="hint">No members yet: only those with a role reach this project.</p>}
      {members.map((m, i) => {
        const n = i + 1;
        const error = [
          props.errors.get(`spec.members[${i}]`),
          props.errors.get(`spec.members[${i}].kind`),
          props.errors.get(`spec.members[${i}].name`),
          props.errors.get(`spec.members[${i}].clusterRole`),
        ]
          .filter(Boolean)
          .join(" ");
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: members have no identity but their position while edited
          <div className="member" key={i}>
            <label htmlFor={`${id}-k${i}`}>Member {n} is a</label>
            <select id={`${id}-k${i}`} value={m.kind} onChange={(e) => update(i, { kind: e.target.value })}>
              <option value="User">User</option>
              <option value="Team">Team</option>
            </select>
            <label htmlFor={`${id}-n${i}`}>Member {n} name</label>
            <input id={`${id}-n${i}`} value={m.name} onChange={(e) => update(i, { name: e.target.value.trim() })} />
            <label htmlFor={`${id}-r${i}`}>Member {n} role</label>
            <select
              id={`${id}-r${i}`}
              value={m.clusterRole ?? ""}
              onChange={(e) => update(i, { clusterRole: e.target.value })}
            >
              {roles(m.clusterRole).map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
            {error && <p className="field-error">{error}</p>}
            <button type="button" onClick={() => props.onChange(members.filter((_, j) => j !== i))}>
              Remove member {n}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => props.onChange([...members, { kind: "User", name: "" }])}>
        Add member
      </button>
      {props.errors.get(props.field.path) && <p className="field-error">{props.errors.get(props.field.path)}</p>}
    </fieldset>
  );
}
