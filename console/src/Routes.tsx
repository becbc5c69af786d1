import { kindOf } from "./kinds";
import { ConnectCluster } from "./pages/ConnectCluster";
import { CreateAccessKey } from "./pages/CreateAccessKey";
import { DetailPage } from "./pages/DetailPage";
import { EditPage } from "./pages/EditPage";
import { ListPage } from "./pages/ListPage";
import { Overview } from "./pages/Overview";
import { WhoAmI } from "./pages/WhoAmI";
import { useLocation } from "./router";

/** / (overview), /k/PLURAL, /k/PLURAL/new, /k/PLURAL/[NAMESPACE/]NAME[/edit], /self, /connect-cluster, /new-access-key */
export function Routes() {
  const { path } = useLocation();
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return <Overview />;
  if (parts[0] === "self") return <WhoAmI />;
  if (parts[0] === "connect-cluster") return <ConnectCluster />;
  if (parts[0] === "new-access-key") return <CreateAccessKey />;
  const kind = parts[0] === "k" ? kindOf(parts[1] ?? "") : undefined;
  if (!kind) return <NotFound />;
  const rest = parts.slice(2);
  if (rest.length === 0) return <ListPage key={kind.plural} kind={kind} />;
  if (rest.length === 1 && rest[0] === "new") return <EditPage key={`${kind.plural}/new`} kind={kind} />;
  const edit = rest[rest.length - 1] === "edit";
  const ref = edit ? rest.slice(0, -1) : rest;
  const [namespace, name] = kind.namespaced ? [ref[0], ref[1]] : [undefined, ref[0]];
  if (!name || ref.length !== (kind.namespaced ? 2 : 1)) return <NotFound />;
  const key = `${kind.plural}/${namespace ?? ""}/${name}`;
  return edit ? (
    <EditPage key={`${key}/edit`} kind={kind} name={name} namespace={namespace} />
  ) : (
    <DetailPage key={key} kind={kind} name={name} namespace={namespace} />
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
    </section>
  );
}
