import { useQuery } from "@tanstack/react-query";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { FormField } from "./FormField";

/** The templates a create form offers, and why they could not be listed. */
export interface TemplateList {
  items: KubeObject[];
  error: unknown;
}

/** The templates of a kind that the caller may see (the server lists only those). */
export function useTemplates(plural: "virtualclustertemplates" | "spacetemplates"): TemplateList {
  const q = useQuery({
    queryKey: ["list", plural],
    queryFn: () => request<KubeList>("GET", `${API}/${plural}?limit=200`),
  });
  return { items: q.data?.items ?? [], error: errorToShow(q.error) };
}

/**
 * The choice of template in a create form: each shown by its display name and name; `none`
 * labels the choice of no template where the instance may have none. A list that could not be
 * read says why beside it, rather than offering nothing without a word.
 */
export function TemplateField(props: {
  label: string;
  templates: TemplateList;
  value: string;
  onChange: (name: string) => void;
  error?: string;
  none?: string;
}) {
  const { templates } = props;
  return (
    <>
      <FormField
        label={props.label}
        value={props.value}
        onChange={props.onChange}
        error={props.error}
        choices={[
          ...(props.none !== undefined ? [{ value: "", label: props.none }] : []),
          ...templates.items.map((t) => ({ value: t.metadata.name ?? "", label: templateLabel(t) })),
        ]}
      />
      {!!templates.error && <p className="error">{describeError(templates.error)}</p>}
    </>
  );
}

function templateLabel(t: KubeObject): string {
  const shown = String(t.spec?.displayName ?? "");
  return shown ? `${shown} (${t.metadata.name})` : (t.metadata.name ?? "");
}
