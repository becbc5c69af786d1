/** Runs one case of the corpus on one side: its setup, then the request compared. */
import type { OracleCase } from "./corpus.js";
import { type Normalised, normalise } from "./normalise.js";
import type { Answer, Target } from "./targets.js";

export async function runCase(target: Target, c: OracleCase, n: string): Promise<Normalised> {
  const setup: Answer[] = [];
  for (const step of c.setup?.(n) ?? []) {
    if (step.only && step.only !== target.name) {
      // Kept in place, so a case finds its setup's answers at the same index on either side.
      setup.push({ status: 0, warnings: [], json: undefined, text: "" });
      continue;
    }
    const answer = await target.send(step);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`${target.name}: setup ${step.method} ${step.path} answered ${answer.status}: ${answer.text}`);
    }
    setup.push(answer);
  }
  const answer = normalise(await target.send(c.request(n, setup)), {
    withoutStatus: c.statusByController,
    messages: c.compareMessages,
  });
  if (answer.message !== undefined) answer.message = withPlaceholders(answer.message, c.ownValues?.(setup) ?? {});
  return answer;
}

/**
 * `text` with each of this side's own values replaced by its placeholder where it stands alone
 * (a resourceVersion `22` is not replaced inside the name `c122`).
 */
function withPlaceholders(text: string, own: Record<string, string>): string {
  let out = text;
  for (const [placeholder, value] of Object.entries(own)) {
    if (value === "") continue;
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, "g"), placeholder);
  }
  return out;
}
