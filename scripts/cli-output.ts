/**
 * What every CLI prints through: plain aligned tables, and a quiet end when the reader of stdout goes away
 * (`npm run routes | head`): Node reports a closed pipe as an EPIPE error event, a stack trace without a
 * listener. Imported by scripts/cli-target.ts, which every admin CLI loads first.
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

type Cell = string | number | boolean | null | undefined;

/**
 * Rows as a table: a header of the column names, one line a row, numbers aligned right, nothing for an
 * empty cell. `columns` picks and orders them (default: the first row's keys). No rows: "(none)".
 */
export function formatTable(rows: readonly Record<string, Cell>[], columns: readonly string[] = Object.keys(rows[0] ?? {})): string {
  if (!rows.length) return "(none)";
  const text = (value: Cell) => (value === null || value === undefined ? "" : String(value));
  const numeric = columns.map((c) => rows.every((r) => r[c] === undefined || r[c] === null || r[c] === "" || typeof r[c] === "number"));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line([...columns]), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(columns.map((c) => text(r[c]))))].join("\n");
}

export function printTable(rows: readonly Record<string, Cell>[], columns?: readonly string[]): void {
  console.log(formatTable(rows, columns));
}
