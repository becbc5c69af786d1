import { useQuery } from "@tanstack/react-query";
import { expiryOf } from "../api/access-key-facts";
import { API, describeError, errorToShow, request } from "../api/client";
import { whoAmI } from "../api/resources";
import type { KubeList, KubeObject } from "../api/types";
import { Link } from "../router";

/** The signed-in identity: who, groups, teams, roles, own keys. */
export function WhoAmI() {
  const self = useQuery({ queryKey: ["self"], queryFn: whoAmI });
  const s = self.data?.status ?? {};
  const userName = typeof s.user === "string" ? s.user : undefined;
  const user = useQuery({
    queryKey: ["object", "users", "", userName],
    queryFn: () => request<KubeObject>("GET", `${API}/users/${encodeURIComponent(userName ?? "")}`),
    enabled: !!userName,
  });
  const keys = useQuery({
    queryKey: ["subject-keys", "users", userName],
    queryFn: () => request<KubeList>("GET", `${API}/users/${encodeURIComponent(userName ?? "")}/accesskeys`),
    enabled: !!userName,
  });
  const roles = ((user.data?.spec?.clusterRoles as Array<{ name: string }> | undefined) ?? []).map((r) => r.name);
  return (
    <section>
      <h1>Who am I</h1>
      {!!errorToShow(self.error) && (
        <p role="alert" className="error">
          {describeError(self.error)}
        </p>
      )}
      {self.data && (
        <dl className="facts">
          <Fact label={userName ? "User" : s.team ? "Team" : "Subject"} value={String(s.user ?? s.team ?? s.subject)} />
          <Fact label="Signed in with key" value={`${s.accessKey ?? ""} (${s.accessKeyType ?? ""})`} />
          <Fact label="Teams" value={((s.teams as string[] | undefined) ?? []).join(", ") || "none"} />
          <Fact label="Groups" value={((s.groups as string[] | undefined) ?? []).join(", ") || "none"} />
          {userName && <Fact label="Cluster roles" value={roles.join(", ") || "none"} />}
        </dl>
      )}
      <div className="heading">
        <h2>My access keys</h2>
        <Link to="/new-access-key" className="button">
          Create an access key
        </Link>
      </div>
      {keys.data && keys.data.items.length === 0 && (
        <p className="empty">
          You have no access keys of your own yet. Create one to sign in with the platform CLI or kubectl.
        </p>
      )}
      {keys.data && keys.data.items.length > 0 && (
        <ul>
          {keys.data.items.map((k) => (
            <li key={k.metadata.name}>
              <Link to={`/k/ownedaccesskeys/${encodeURIComponent(k.metadata.name ?? "")}`}>{k.metadata.name}</Link>
              {` · expires ${expiryOf(k)}`}
              {k.spec?.disabled ? " · disabled" : ""}
            </li>
          ))}
        </ul>
      )}
    </section>
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
