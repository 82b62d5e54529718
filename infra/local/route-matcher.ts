import type { RouteRow } from "../../functions/routes.js";
import { isVariable, resourcePaths } from "../../shared/http/resource-paths.js";

/**
 * A row, or why none: a known path (`allowed` names its methods, for a 405) or no path at all. A row comes with
 * what API Gateway sends for it: its `resource` (the resource path: one variable name per level,
 * shared/http/resource-paths.ts) and the path parameters under that resource's names.
 */
export type Match =
  | { row: RouteRow; resource: string; pathParameters: Record<string, string> }
  | { row?: undefined; methodMismatch: false }
  | { row?: undefined; methodMismatch: true; allowed: string[] };

const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"];

interface Compiled {
  row: RouteRow;
  resource: string;
  segments: string[];
  /** Literal segments outrank parameters, as in API Gateway's resource tree. */
  rank: number[];
}

/**
 * Matches request paths against the route table the way API Gateway's resource tree does: the tree of the
 * rows' resource paths (infra/resource-tree.ts), so rows whose paths differ only in their variables' names
 * are one resource, whose methods are theirs together.
 */
export function routeMatcher(rows: readonly RouteRow[]) {
  const resourceOf = resourcePaths(rows.map((row) => row.path));
  const compiled: Compiled[] = rows.map((row) => {
    const resource = resourceOf(row.path);
    const segments = resource.split("/").filter(Boolean);
    return { row, resource, segments, rank: segments.map((s) => (isVariable(s) ? 0 : 1)) };
  });
  return (method: string, path: string): Match => {
    const parts = path.split("/").filter(Boolean);
    const candidates = compiled
      .filter((c) => c.segments.length === parts.length && c.segments.every((s, i) => isVariable(s) || s === parts[i]))
      .sort((a, b) => compareRank(b.rank, a.rank));
    if (!candidates.length) return { methodMismatch: false };
    // The best rank picks one resource: equal ranks matching one path are the same resource path.
    const best = candidates.filter((c) => compareRank(c.rank, candidates[0]!.rank) === 0);
    const hit = best.find((c) => c.row.method === method);
    if (!hit) return { methodMismatch: true, allowed: [...new Set(best.map((c) => c.row.method))].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)) };
    const pathParameters: Record<string, string> = {};
    hit.segments.forEach((s, i) => {
      if (isVariable(s)) pathParameters[s.slice(1, -1)] = parts[i]!;
    });
    return { row: hit.row, resource: hit.resource, pathParameters };
  };
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
