import type { AccessRule } from "./AccessEditor";

export function AccessRules({ rules }: { rules?: AccessRule[] }) {
  return (
    <>
      <h2>Access</h2>
      {!rules?.length ? (
        <p>No access rules.</p>
      ) : (
        <ul className="rules">
          {rules.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rules have no identity but their position
            <li key={i}>
              <strong>{(r.verbs ?? []).join(", ")}</strong>
              {r.users?.length ? ` · users: ${r.users.join(", ")}` : ""}
              {r.teams?.length ? ` · teams: ${r.teams.join(", ")}` : ""}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
