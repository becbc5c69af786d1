import { type FormEvent, useState } from "react";
import { type ParameterDecl, parameterErrors, parametersToSend } from "./parameters";
import { type FormErrors, formErrors, NO_ERRORS } from "./server-errors";

/** What a form creating an instance from a template keeps of its parameters. */
export interface ParameterForm {
  decls: readonly ParameterDecl[];
  values: Record<string, string>;
  /**
   * The message beside each parameter: the page's own check once its field was left (or the form
   * submitted), so the user reads it before sending; else the server's refusal of the value sent.
   */
  messages: ReadonlyMap<string, string>;
  change(name: string, value: string): void;
  leave(name: string): void;
}

export interface TemplateForm {
  parameters: ParameterForm;
  /** The server's refusal of the other fields, and the line above the form. */
  errors: FormErrors;
  /**
   * The form's submit handler: checks the parameters in the page (nothing is sent while one is
   * wrong), then `send`s the values typed; a refusal is said beside the fields it names.
   */
  submit(send: (parameters: Record<string, string> | undefined) => Promise<void>): (e: FormEvent) => Promise<void>;
}

/** The values typed for one choice of template (and version), and what was said of them. */
interface Typed {
  template: string;
  values: Record<string, string>;
  /** Fields the page's own check speaks for: left once, or all after a submit. */
  checked: ReadonlySet<string>;
  /** The server's refusals of the values sent, until the value changes. */
  refused: ReadonlyMap<string, string>;
}

const fresh = (template: string): Typed => ({ template, values: {}, checked: new Set(), refused: new Map() });

const NOT_SENT = "Not sent: see the values marked below.";

/**
 * The state of a "create from a template" form: `decls` are the chosen template version's
 * parameters and `template` names that choice (another template or version starts the values
 * afresh: they were typed for other parameters); `shown` are the field paths the form shows
 * besides the parameters, where the server's refusals are said.
 */
export function useTemplateForm(opts: {
  decls: readonly ParameterDecl[];
  template: string;
  shown: readonly string[];
}): TemplateForm {
  const { decls, template, shown } = opts;
  const [typed, setTyped] = useState<Typed>(() => fresh(template));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const current = typed.template === template ? typed : fresh(template);
  const update = (change: (t: Typed) => Typed) =>
    setTyped((t) => change(t.template === template ? t : fresh(template)));

  const messages = new Map(current.refused);
  for (const [name, message] of parameterErrors(decls, current.values)) {
    if (current.checked.has(name)) messages.set(name, message);
  }
  const parameters: ParameterForm = {
    decls,
    values: current.values,
    messages,
    change: (name, value) =>
      update((t) => ({
        ...t,
        values: { ...t.values, [name]: value },
        refused: new Map([...t.refused].filter(([n]) => n !== name)),
      })),
    leave: (name) => update((t) => (t.checked.has(name) ? t : { ...t, checked: new Set([...t.checked, name]) })),
  };

  const submit = (send: (values: Record<string, string> | undefined) => Promise<void>) => async (e: FormEvent) => {
    e.preventDefault();
    if (parameterErrors(decls, current.values).size > 0) {
      update((t) => ({ ...t, checked: new Set(decls.map((p) => p.name)), refused: new Map() }));
      setErrors({ ...NO_ERRORS, summary: NOT_SENT });
      return;
    }
    setErrors(NO_ERRORS);
    try {
      await send(parametersToSend(current.values));
    } catch (err) {
      const told = formErrors(
        err,
        shown,
        decls.map((p) => p.name),
      );
      setErrors(told);
      update((t) => ({ ...t, refused: told.parameters }));
    }
  };
  return { parameters, errors, submit };
}
