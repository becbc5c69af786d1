import { useQuery } from "@tanstack/react-query";
import { API, request } from "../../api/client";
import type { KubeList } from "../../api/types";

/**
 * The objects of kind `plural` in `namespace` (a project's p-NAME), for a list on a page: read
 * again every few seconds, so phases move without a reload. Its key starts ["list", plural], which
 * a create or delete of that kind invalidates.
 */
export function useNamespaceList(plural: string, namespace: string) {
  return useQuery({
    queryKey: ["list", plural, "project", namespace],
    queryFn: () => request<KubeList>("GET", `${API}/namespaces/${encodeURIComponent(namespace)}/${plural}?limit=200`),
    refetchInterval: 5000,
  });
}
