import { useQuery } from "@tanstack/react-query";
import { mayI } from "./api/resources";

/**
 * Whether the signed-in user may do verb (SelfSubjectAccessReview, cached a minute). Undefined
 * while asking: callers show nothing that writes until they know.
 */
export function useCan(
  verb: string,
  resource: string,
  options: { name?: string; namespace?: string; subresource?: string } = {},
): boolean | undefined {
  const q = useQuery({
    queryKey: ["can", verb, resource, options.namespace ?? "", options.name ?? "", options.subresource ?? ""],
    queryFn: () => mayI(verb, resource, options).catch(() => false),
    staleTime: 60_000,
  });
  return q.data;
}
