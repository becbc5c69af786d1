/** Text as a person sorts it: case-insensitive by locale, and "web-10" after "web-9". */
export const compareText = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });

/** A column header that sorts by its column when pressed; aria-sort says which way it sorts now. */
export function SortHeader(props: { label: string; active: boolean; descending: boolean; onSort: () => void }) {
  const { active, descending } = props;
  return (
    <th scope="col" aria-sort={active ? (descending ? "descending" : "ascending") : undefined}>
      <button type="button" className="sort" onClick={props.onSort}>
        {props.label}
        <span aria-hidden="true">{active ? (descending ? " ▼" : " ▲") : ""}</span>
      </button>
    </th>
  );
}
