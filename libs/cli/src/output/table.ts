/** A value as a table cell: kafka-consumer-groups.sh prints `-` where there is nothing. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  return String(value);
}

/**
 * Columns left-aligned, two spaces apart, header first: the layout of kafka-consumer-groups.sh.
 * Ends with a newline; an empty table is just its header.
 */
export function renderTable(columns: readonly string[], rows: readonly unknown[][]): string {
  const cells = rows.map((row) => row.map(cell));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n') + '\n';
}
