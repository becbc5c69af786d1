/**
 * Hours typed into a form, as seconds for the API, or why the text is no number of hours
 * (people write "1d" or "2h"; the field wants a plain number).
 */
export function parseHours(text: string): { seconds: number } | { error: string } {
  const t = text.trim();
  const hours = Number(t);
  if (t !== "" && Number.isFinite(hours) && hours > 0) return { seconds: Math.round(hours * 3600) };
  const unit = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(t);
  const asked = unit ? ` ("${t}" looks like ${unitHint(Number(unit[1]), unit[2]!.toLowerCase())})` : "";
  return {
    error: `Write a number of hours, such as 24 for a day or 0.5 for half an hour${asked}.`,
  };
}

function unitHint(n: number, unit: string): string {
  if (unit.startsWith("d")) return `${n * 24} hours`;
  if (unit.startsWith("w")) return `${n * 168} hours`;
  if (unit.startsWith("m")) return `${n / 60} hours`;
  if (unit.startsWith("h")) return `${n} hours: leave out the unit`;
  return "a unit the field does not take";
}
