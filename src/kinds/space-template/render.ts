import type { ParameterValue } from "../template-parameters/parameters.js";
import { substitute } from "../template-parameters/substitution.js";

/**
 * A space's labels, annotations and objects with their `${...}` references filled in: the
 * template's parameters (`${params.<name>}`) and the space's own built-ins. The language is the
 * one every template kind shares (kinds/template-parameters/substitution.ts). Pure.
 */

/** What a space template refers to besides its parameters: the space itself, as `space.<field>`. */
export const BUILT_IN_REFERENCES = ["space.name", "space.namespace", "space.project"] as const;

/** A value a reference takes: parameters are typed (number, boolean) or strings. */
export type PlaceholderValue = ParameterValue;

/**
 * `value` with its references filled in from `values` (by reference name: `params.pods`,
 * `space.name`). A string that is exactly one reference takes the value's own type; one inside
 * longer text is written as text. Throws UnrenderableTemplate for a reference `values` does not
 * hold (validation refuses those when the template is written).
 */
export function fillPlaceholders<T>(value: T, values: Readonly<Record<string, PlaceholderValue>>): T {
  return substitute(value, new Map(Object.entries(values))) as T;
}
