import { renderTable } from './table';

export type OutputFormat = 'table' | 'json';

/** Where a command writes: stdout for results, stderr for notes and errors. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** Prints a result as a table (people) or as the REST answer in JSON (scripts). */
export class Output {
  constructor(
    readonly format: OutputFormat,
    private readonly io: CliIo,
  ) {}

  /** `json`: the value as it came; `table`: the columns and rows `toTable` makes of it. */
  result<T>(value: T, toTable: (value: T) => { columns: readonly string[]; rows: unknown[][] } | string): void {
    if (this.format === 'json') {
      this.io.out(`${JSON.stringify(value ?? null, null, 2)}\n`);
      return;
    }
    const table = toTable(value);
    this.io.out(typeof table === 'string' ? table : renderTable(table.columns, table.rows));
  }

  /** Text printed as it is, whatever the format (CSV for --export). */
  raw(text: string): void {
    this.io.out(text);
  }

  /** A remark for people (dry-run notes): stderr, so piped output stays the table or the JSON. */
  note(text: string): void {
    this.io.err(`${text}\n`);
  }
}
