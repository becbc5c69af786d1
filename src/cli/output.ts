import type { Json } from "./api-client.js";
import { CliError } from "./errors.js";
import { stringify } from "./lazy-yaml.js";

export type OutputFormat = "table" | "json" | "yaml";

export function parseOutput(value: string | undefined): OutputFormat {
  if (value === undefined || value === "" || value === "table" || value === "wide") return "table";
  if (value === "json" || value === "yaml") return value;
  throw new CliError(`--output must be json, yaml or table, got "${value}"`, 2);
}

/** Colour only when writing to a terminal, and never when NO_COLOR is set (https://no-color.org). */
function useColour(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

function paint(code: string, text: string, stream: NodeJS.WriteStream): string {
  return useColour(stream) ? `\u001b[${code}m${text}\u001b[0m` : text;
}
const bold = (t: string, s = process.stdout) => paint("1", t, s);
export const red = (t: string, s = process.stderr) => paint("31", t, s);
export const green = (t: string, s = process.stdout) => paint("32", t, s);

export function printJsonOrYaml(value: unknown, format: "json" | "yaml"): void {
  process.stdout.write(format === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value));
}

/** Left-aligned columns separated by three spaces, upper-case header, as kubectl prints. */
export function formatTable(headers: string[], rows: unknown[][]): string {
  const cells = rows.map((r) => r.map(cellText));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("   ")
      .trimEnd();
  const head = line(headers.map((h) => h.toUpperCase()));
  return `${[bold(head), ...cells.map(line)].join("\n")}\n`;
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "<none>";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function printTable(headers: string[], rows: unknown[][], emptyMessage?: string): void {
  if (rows.length === 0 && emptyMessage) {
    process.stderr.write(`${emptyMessage}\n`);
    return;
  }
  process.stdout.write(formatTable(headers, rows));
}

/** A meta.k8s.io Table from the server, printed with the server's own columns (priority 0, like kubectl, and those named in `alsoShow`). */
export function printServerTable(
  table: Json,
  emptyMessage: string,
  alsoShow: string[] = [],
  extra?: { header: string; cell: (row: Json) => string },
): void {
  const defs: { name: string; priority?: number }[] = table?.columnDefinitions ?? [];
  const shown = defs.map((d, i) => ({ d, i })).filter(({ d }) => !d.priority || alsoShow.includes(d.name));
  const headers = shown.map(({ d }) => d.name);
  const rows: unknown[][] = (table?.rows ?? []).map((r: Json) => shown.map(({ i }) => r.cells?.[i]));
  if (extra) {
    headers.unshift(extra.header);
    for (const [n, r] of ((table?.rows ?? []) as Json[]).entries()) rows[n]?.unshift(extra.cell(r));
  }
  printTable(headers, rows, emptyMessage);
}

/**
 * A spinner on stderr while `work` runs, only on a terminal and only once it has taken more than a
 * moment (so quick commands never flash one); stdout stays clean for pipes.
 */
export async function withSpinner<T>(label: string, work: Promise<T>): Promise<T> {
  const stream = process.stderr;
  if (!stream.isTTY) return work;
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  let n = 0;
  let shown = false;
  let timer: NodeJS.Timeout | undefined;
  // A 300 ms grace period before the first frame.
  const start = setTimeout(() => {
    shown = true;
    timer = setInterval(() => stream.write(`\r${frames[n++ % frames.length]} ${label}`), 100);
  }, 300);
  try {
    return await work;
  } finally {
    clearTimeout(start);
    if (timer) clearInterval(timer);
    if (shown) stream.write("\r\u001b[2K");
  }
}
