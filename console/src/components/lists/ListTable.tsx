import { type ReactNode, useMemo, useState } from "react";
import { errorToShow } from "../../api/client";
import { describeReadError } from "../../api/read-error";
import { Link } from "../../router";
import { compareText, SortHeader } from "./SortHeader";

/** One column of a ListTable. */
export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  /** The text the column sorts by; without it the header does not sort, and the cell is kept whole (buttons). */
  sortBy?: (row: T) => string;
  /** Monospaced: names as a cluster spells them. */
  mono?: boolean;
}

/** Which column the table sorts by, and which way. */
export interface SortOrder {
  column: string;
  descending: boolean;
}

/**
 * A list on a page (a project's spaces, its members, a cluster's grants): a table that sorts by
 * any column whose header is pressed, the first cell of a row linking to the row's page; while
 * it loads, a line saying so; when empty, `empty`, which says what to do; when the read failed,
 * the error in words (a 403 as "You may not see `what`"), never an empty table. Rows stack into
 * blocks on a phone (class "stack").
 */
export function ListTable<T>(props: {
  /** What the rows are, as a sentence names them: "the spaces of this project". */
  what: string;
  /** Undefined while the first read is under way. */
  rows: readonly T[] | undefined;
  error?: unknown;
  columns: readonly Column<T>[];
  rowKey: (row: T) => string;
  rowLink?: (row: T) => string;
  empty: ReactNode;
  /** The order before any header is pressed (default: the first column, ascending). */
  initialSort?: SortOrder;
}) {
  const { columns, rows } = props;
  const [order, setOrder] = useState<SortOrder>(
    props.initialSort ?? { column: columns[0]?.label ?? "", descending: false },
  );
  const sorted = useMemo(() => sortRows(rows ?? [], columns, order), [rows, columns, order]);
  const error = errorToShow(props.error);
  const sortBy = (label: string) =>
    setOrder((o) => ({ column: label, descending: o.column === label ? !o.descending : false }));
  return (
    <>
      {!!error && (
        <p role="alert" className="error">
          {describeReadError(error, props.what)}
        </p>
      )}
      {rows === undefined && !props.error && <p aria-live="polite">Loading {props.what}…</p>}
      {rows?.length === 0 && <div className="empty">{props.empty}</div>}
      {sorted.length > 0 && (
        <div className="table-wrap">
          <table className="stack list" aria-label={capitalized(props.what)}>
            <thead>
              <tr>
                {columns.map((c) =>
                  c.sortBy ? (
                    <SortHeader
                      key={c.label}
                      label={c.label}
                      active={order.column === c.label}
                      descending={order.descending}
                      onSort={() => sortBy(c.label)}
                    />
                  ) : (
                    <th scope="col" key={c.label}>
                      {c.label}
                    </th>
                  ),
                )}
              </tr>
            </thead>
            <tbody>
              {sorted.map((row) => (
                <tr key={props.rowKey(row)}>
                  {columns.map((c, i) => (
                    <td key={c.label} data-label={c.label} className={c.sortBy ? undefined : "actions"}>
                      {/* One box: at phone width the cell is a flex row of its label and this. */}
                      <div className={c.mono ? "mono" : undefined}>
                        {i === 0 && props.rowLink ? <Link to={props.rowLink(row)}>{c.cell(row)}</Link> : c.cell(row)}
                      </div>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Rows in `order`; ties keep the order the server gave. */
function sortRows<T>(rows: readonly T[], columns: readonly Column<T>[], order: SortOrder): T[] {
  const by = columns.find((c) => c.label === order.column)?.sortBy;
  if (!by) return [...rows];
  const sign = order.descending ? -1 : 1;
  return [...rows].sort((a, b) => sign * compareText(by(a), by(b)));
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
