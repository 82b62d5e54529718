/**
 * Two versions of an entry side by side: one row per field, version A's value and version B's in two columns, a
 * changed field marked in words ("changed") and by its row's colour, and in a changed text the lines only one side
 * has shown as deleted (A) or inserted (B).
 */
export interface CompareField {
  name: string;
  /** Each side's value as text (JSON pretty-printed with sorted keys, so a diff by line reads well); null = not set. */
  a: string | null;
  b: string | null;
}

/** Text for a field's value: strings as they are, anything else as JSON with sorted keys; null/undefined/empty as not set. */
export function shown(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

type Mark = "same" | "gone" | "new";

/** A line diff (longest common subsequence): each of A's lines kept or gone, each of B's kept or new. */
export function diffLines(a: string, b: string): { a: { text: string; mark: Mark }[]; b: { text: string; mark: Mark }[] } {
  const x = a.split("\n");
  const y = b.split("\n");
  // Large texts: compare whole, rather than fill an n×m table.
  if (x.length * y.length > 250_000) return { a: x.map((text) => ({ text, mark: "gone" })), b: y.map((text) => ({ text, mark: "new" })) };
  const lcs: number[][] = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const left: { text: string; mark: Mark }[] = [];
  const right: { text: string; mark: Mark }[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      left.push({ text: x[i]!, mark: "same" });
      right.push({ text: y[j]!, mark: "same" });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) left.push({ text: x[i++]!, mark: "gone" });
    else right.push({ text: y[j++]!, mark: "new" });
  }
  while (i < x.length) left.push({ text: x[i++]!, mark: "gone" });
  while (j < y.length) right.push({ text: y[j++]!, mark: "new" });
  return { a: left, b: right };
}

function Lines({ lines }: { lines: { text: string; mark: Mark }[] }) {
  return (
    <>
      {lines.map((line, n) => {
        const end = n < lines.length - 1 ? "\n" : "";
        if (line.mark === "gone") return <del>{line.text + end}</del>;
        if (line.mark === "new") return <ins>{line.text + end}</ins>;
        return <span>{line.text + end}</span>;
      })}
    </>
  );
}

function Value({ value, lines }: { value: string | null; lines?: { text: string; mark: Mark }[] }) {
  if (value === null) return <span class="muted">not set</span>;
  if (value === "") return <span class="muted">empty</span>;
  return <pre class="compare-value">{lines ? <Lines lines={lines} /> : value}</pre>;
}

export function SideBySide({ caption, labelA, labelB, fields }: { caption: string; labelA: string; labelB: string; fields: CompareField[] }) {
  const changed = fields.filter((f) => f.a !== f.b).length;
  return (
    <div class="table-wrap">
      <p class="muted" aria-live="polite" data-testid="compare-summary">
        {changed === 0 ? "The two versions have the same fields." : `${changed} ${changed === 1 ? "field differs" : "fields differ"}.`}
      </p>
      <table class="compare">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">{labelA}</th>
            <th scope="col">{labelB}</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => {
            const differs = field.a !== field.b;
            const diff = differs && field.a !== null && field.b !== null ? diffLines(field.a, field.b) : undefined;
            return (
              <tr class={differs ? "changed" : undefined} data-field={field.name} data-changed={differs ? "true" : "false"}>
                <th scope="row">
                  {field.name}
                  {differs && (
                    <>
                      {" "}
                      <span class="badge changed-badge">changed</span>
                    </>
                  )}
                </th>
                <td data-side="a">
                  <Value value={field.a} lines={diff?.a} />
                </td>
                <td data-side="b">
                  <Value value={field.b} lines={diff?.b} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
