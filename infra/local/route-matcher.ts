import type { RouteRow } from "../../functions/routes.js";

/** A row, or why none: a known path (`allowed` names its methods, for a 405) or no path at all. */
export type Match = { row: RouteRow; pathParameters: Record<string, string> } | { row?: undefined; methodMismatch: false } | { row?: undefined; methodMismatch: true; allowed: string[] };

const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"];

interface Compiled {
  row: RouteRow;
  segments: string[];
  /** Literal segments outrank parameters, as in API Gateway's resource tree. */
  rank: number[];
}

const isParam = (segment: string) => segment.startsWith("{") && segment.endsWith("}");

/** Matches request paths against the route table the way API Gateway's resource tree does. */
export function routeMatcher(rows: readonly RouteRow[]) {
  const compiled: Compiled[] = rows.map((row) => {
    const segments = row.path.split("/").filter(Boolean);
    return { row, segments, rank: segments.map((s) => (isParam(s) ? 0 : 1)) };
  });
  return (method: string, path: string): Match => {
    const parts = path.split("/").filter(Boolean);
    const candidates = compiled
      .filter((c) => c.segments.length === parts.length && c.segments.every((s, i) => isParam(s) || s === parts[i]))
      .sort((a, b) => compareRank(b.rank, a.rank));
    if (!candidates.length) return { methodMismatch: false };
    const best = candidates.filter((c) => compareRank(c.rank, candidates[0]!.rank) === 0);
    const hit = best.find((c) => c.row.method === method);
    if (!hit) return { methodMismatch: true, allowed: best.map((c) => c.row.method).sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)) };
    const pathParameters: Record<string, string> = {};
    hit.segments.forEach((s, i) => {
      if (isParam(s)) pathParameters[s.slice(1, -1)] = parts[i]!;
    });
    return { row: hit.row, pathParameters };
  };
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
