import { FormField } from "./FormField";
import type { FormErrors } from "./server-errors";

/** A new instance's name and where it goes: the connected cluster and the namespace there. */
export interface Placement {
  name: string;
  cluster: string;
  namespace: string;
}

/** The field paths PlacementFields shows the server's refusals of. */
export const PLACEMENT_FIELDS = ["metadata.name", "spec.clusterRef.cluster", "spec.clusterRef.namespace"];

/**
 * The name, cluster and namespace fields of a create form, each with the server's refusal beside
 * it; `labels` word them for the kind created, `namespaceHint` says what an empty namespace becomes.
 */
export function PlacementFields(props: {
  labels: Placement;
  namespaceHint: string;
  values: Placement;
  onChange: (field: keyof Placement) => (value: string) => void;
  errors: FormErrors;
}) {
  const { labels, values, onChange, errors } = props;
  return (
    <>
      <FormField
        label={labels.name}
        value={values.name}
        onChange={onChange("name")}
        error={errors.fields.get("metadata.name")}
      />
      <FormField
        label={labels.cluster}
        value={values.cluster}
        onChange={onChange("cluster")}
        error={errors.fields.get("spec.clusterRef.cluster")}
      />
      <FormField
        label={labels.namespace}
        hint={props.namespaceHint}
        value={values.namespace}
        onChange={onChange("namespace")}
        error={errors.fields.get("spec.clusterRef.namespace")}
      />
    </>
  );
}
