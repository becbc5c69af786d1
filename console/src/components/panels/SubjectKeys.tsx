import { useQuery } from "@tanstack/react-query";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList } from "../../api/types";
import type { KindInfo } from "../../kinds";
import { Link } from "../../router";

/** A user's or team's access keys (names and state, never values). */
export function SubjectKeys({ kind, name }: { kind: KindInfo; name: string }) {
  const q = useQuery({
    queryKey: ["subject-keys", kind.plural, name],
    queryFn: () => request<KubeList>("GET", `${API}/${kind.plural}/${encodeURIComponent(name)}/accesskeys`),
  });
  return (
    <>
      <h2>Access keys</h2>
      {!!errorToShow(q.error) && <p className="error">{describeError(q.error)}</p>}
      {q.data && q.data.items.length === 0 && (
        <p className="empty">
          No access keys. {kind.kind === "User" ? "The user" : "A member of the team"} can create one under "Who am I",
          or an admin with <Link to="/new-access-key">Create an access key</Link> (for user:NAME or team:NAME).
        </p>
      )}
      {q.data && q.data.items.length > 0 && (
        <ul>
          {q.data.items.map((k) => (
            <li key={k.metadata.name}>
              <Link to={`/k/ownedaccesskeys/${encodeURIComponent(k.metadata.name ?? "")}`}>{k.metadata.name}</Link>
              {k.spec?.disabled ? " (disabled)" : ""}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
