/**
 * A server message as a person reads it beside its field: without the field path (the field is
 * right there), without the regular expression Kubernetes appends for programs, and with the
 * refused value first.
 */
export function inWords(message: string, field?: string): string {
  let text = message;
  if (field && text.startsWith(`${field}: `)) text = text.slice(field.length + 2);
  text = text
    .replace(/,?\s*regex used for validation is '[^']*'/g, "")
    .replace(/\s*\(\)/g, "")
    .replace(/^Invalid value: ("(?:[^"\\]|\\.)*"): /, "$1 is not valid: ")
    .replace(/^Unsupported value: ("(?:[^"\\]|\\.)*"): /, "$1 is not one of the choices: ")
    .replace(/^Required value(: )?/, (_m, rest) => (rest ? "Required: " : "Required."));
  return text;
}
