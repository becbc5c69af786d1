"""Debian's python3-kubernetes against a running platform server.

Run by src/e2e/python-client.test.ts with KUBECONFIG pointing at the server. Each check prints
"PASS <name>" when it holds; any failure raises, so the process exits non-zero with the traceback.
"""
import json
import os
import sys
import tempfile
import threading

from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION = "management.platform", "v1"
API_VERSION = f"{GROUP}/{VERSION}"


def passed(name):
    print(f"PASS {name}", flush=True)


def team(name, labels=None, display=None):
    return {
        "apiVersion": API_VERSION,
        "kind": "Team",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"displayName": display or name},
    }


def expect_status(code, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except ApiException as err:
        assert err.status == code, f"expected {code}, got {err.status}: {err.body}"
        return err
    raise AssertionError(f"expected ApiException {code}, got success")


def custom_objects(api_client):
    api = client.CustomObjectsApi(api_client)
    for i in range(5):
        api.create_cluster_custom_object(GROUP, VERSION, "teams", team(f"py-{i}", {"tier": "even" if i % 2 == 0 else "odd"}))
    got = api.get_cluster_custom_object(GROUP, VERSION, "teams", "py-0")
    assert got["spec"]["displayName"] == "py-0", got
    passed("custom-objects create/get")

    even = api.list_cluster_custom_object(GROUP, VERSION, "teams", label_selector="tier=even")
    assert sorted(t["metadata"]["name"] for t in even["items"]) == ["py-0", "py-2", "py-4"], even
    by_field = api.list_cluster_custom_object(GROUP, VERSION, "teams", field_selector="metadata.name=py-3")
    assert [t["metadata"]["name"] for t in by_field["items"]] == ["py-3"], by_field
    passed("custom-objects label and field selectors")

    names, token, pages = [], None, 0
    while True:
        page = api.list_cluster_custom_object(GROUP, VERSION, "teams", label_selector="tier", limit=2, _continue=token)
        pages += 1
        names += [t["metadata"]["name"] for t in page["items"]]
        token = page["metadata"].get("continue")
        if not token:
            break
    assert pages == 3 and sorted(names) == [f"py-{i}" for i in range(5)], (pages, names)
    passed("custom-objects pagination")

    patched = api.patch_cluster_custom_object(GROUP, VERSION, "teams", "py-1", {"spec": {"displayName": "One"}})
    assert patched["spec"]["displayName"] == "One", patched
    patched["spec"]["displayName"] = "Uno"
    replaced = api.replace_cluster_custom_object(GROUP, VERSION, "teams", "py-1", patched)
    assert replaced["spec"]["displayName"] == "Uno", replaced
    api.delete_cluster_custom_object(GROUP, VERSION, "teams", "py-1")
    passed("custom-objects patch/replace/delete")

    expect_status(404, api.get_cluster_custom_object, GROUP, VERSION, "teams", "py-1")
    expect_status(409, api.create_cluster_custom_object, GROUP, VERSION, "teams", team("py-0"))
    stale = dict(api.get_cluster_custom_object(GROUP, VERSION, "teams", "py-0"))
    api.patch_cluster_custom_object(GROUP, VERSION, "teams", "py-0", {"spec": {"displayName": "newer"}})
    expect_status(409, api.replace_cluster_custom_object, GROUP, VERSION, "teams", "py-0", stale)
    bad = team("Not_A_Name")
    expect_status(422, api.create_cluster_custom_object, GROUP, VERSION, "teams", bad)
    passed("ApiException status codes")
    return api


def watch_custom_objects(api):
    start = api.list_cluster_custom_object(GROUP, VERSION, "teams")["metadata"]["resourceVersion"]
    seen = []
    w = watch.Watch()

    def write():
        api.create_cluster_custom_object(GROUP, VERSION, "teams", team("py-watched"))
        api.delete_cluster_custom_object(GROUP, VERSION, "teams", "py-watched")

    threading.Timer(0.2, write).start()
    for event in w.stream(
        api.list_cluster_custom_object, GROUP, VERSION, "teams", resource_version=start, timeout_seconds=20,
        allow_watch_bookmarks=True,
    ):
        if event["type"] == "BOOKMARK":
            continue
        seen.append((event["type"], event["object"]["metadata"]["name"]))
        if event["type"] == "DELETED":
            w.stop()
    assert seen == [("ADDED", "py-watched"), ("DELETED", "py-watched")], seen
    passed("watch.Watch")


def dynamic_client(api_client):
    cache = os.path.join(tempfile.mkdtemp(), "discovery.json")
    dyn = dynamic.DynamicClient(api_client, cache_file=cache)
    teams = dyn.resources.get(api_version=API_VERSION, kind="Team")
    assert teams.name == "teams" and not teams.namespaced, teams
    secrets = dyn.resources.get(api_version=API_VERSION, kind="SharedSecret")
    assert secrets.namespaced, secrets
    passed("dynamic discovery")

    created = dyn.create(teams, body=team("dyn-a", {"app": "dyn"}))
    assert created.metadata.name == "dyn-a"
    listed = dyn.get(teams, label_selector="app=dyn")
    assert [t.metadata.name for t in listed.items] == ["dyn-a"], listed
    patched = dyn.patch(teams, name="dyn-a", body={"spec": {"displayName": "A"}},
                        content_type="application/merge-patch+json")
    assert patched.spec.displayName == "A"
    passed("dynamic CRUD")

    # This client version sends an apply patch only from a string body (JSON is YAML).
    manifest = {"apiVersion": API_VERSION, "kind": "Team", "metadata": {"name": "dyn-a"},
                "spec": {"displayName": "applied"}}
    applied = dyn.server_side_apply(
        teams, body=json.dumps(manifest), name="dyn-a", field_manager="python-apply", force_conflicts=True,
    )
    assert applied.spec.displayName == "applied", applied
    managers = [m.manager for m in applied.metadata.managedFields]
    assert "python-apply" in managers, managers
    passed("dynamic server-side apply force=True")

    rv = dyn.get(teams).metadata.resourceVersion
    threading.Timer(0.2, lambda: dyn.delete(teams, name="dyn-a")).start()
    events = []
    for event in dyn.watch(teams, resource_version=rv, timeout=20):
        events.append((event["type"], event["object"].metadata.name))
        if event["type"] == "DELETED":
            break
    assert events[-1] == ("DELETED", "dyn-a"), events
    passed("dynamic watch")
    expect_status(404, dyn.get, teams, name="dyn-a")
    passed("dynamic ApiException")


def main():
    config.load_kube_config(config_file=os.environ["KUBECONFIG"])
    api_client = client.ApiClient()
    api = custom_objects(api_client)
    watch_custom_objects(api)
    dynamic_client(api_client)
    return 0


if __name__ == "__main__":
    sys.exit(main())
