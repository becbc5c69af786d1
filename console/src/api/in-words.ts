/**
 * A server message as a person reads it beside its field: without the regular expression
 * Kubernetes appends for programs, and with the refused value first. A cause's message does not
 * name its field (the server words causes as kube-apiserver does), so it reads as it is beside it.
 */
export function inWords(message: string): string {
  return message
    .replace(/,?\s*regex used for validation is '[^']*'/g, "")
    .replace(/\s*\(\)/g, "")
    .replace(/^Invalid value: ("(?:[^"\\]|\\.)*"): /, "$1 is not valid: ")
    .replace(/^Unsupported value: ("(?:[^"\\]|\\.)*"): /, "$1 is not one of the choices: ")
    .replace(/^Required value(: )?/, (_m, rest) => (rest ? "Required: " : "Required."));
}
