import type { FormErrors } from "./server-errors";

/** The line above a create form saying why it was not sent or not created, read out when it appears. */
export function FormSummary({ errors }: { errors: FormErrors }) {
  if (!errors.summary) return null;
  return (
    <p role="alert" className="error">
      {errors.summary}
    </p>
  );
}
