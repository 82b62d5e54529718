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
  /** Each segment's literal text, or undefined for a variable. */
  literals: (string | undefined)[];
  /** Literal segments (1) outrank parameters (0), as in API Gateway's resource tree. */
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
    const literals = segments.map((s) => (isVariable(s) ? undefined : s));
    return { row, resource, segments, literals, rank: literals.map((l) => (l === undefined ? 0 : 1)) };
  });
  // Looked up on every request: rows by their number of segments, and the all-literal resources by path (such a
  // resource outranks any with a variable, so a path that is one is answered by its rows alone).
  const byLength = new Map<number, Compiled[]>();
  const literalPaths = new Map<string, Compiled[]>();
  const add = <K>(map: Map<K, Compiled[]>, key: K, c: Compiled) => map.set(key, [...(map.get(key) ?? []), c]);
  for (const c of compiled) {
    add(byLength, c.segments.length, c);
    if (!c.rank.includes(0)) add(literalPaths, pathOf(c.segments), c);
  }
  return (method: string, path: string): Match => {
    const parts = path.split("/").filter(Boolean);
    const best =
      literalPaths.get(pathOf(parts)) ??
      bestRanked((byLength.get(parts.length) ?? []).filter((c) => c.literals.every((l, i) => l === undefined || l === parts[i])));
    if (!best.length) return { methodMismatch: false };
    const hit = best.find((c) => c.row.method === method);
    if (!hit) return { methodMismatch: true, allowed: [...new Set(best.map((c) => c.row.method))].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)) };
    const pathParameters: Record<string, string> = {};
    hit.segments.forEach((s, i) => {
      if (hit.literals[i] === undefined) pathParameters[s.slice(1, -1)] = parts[i]!;
    });
    return { row: hit.row, resource: hit.resource, pathParameters };
  };
}

const pathOf = (segments: string[]) => `/${segments.join("/")}`;

/** The candidates of the best rank: equal ranks matching one path are the same resource path. */
function bestRanked(candidates: Compiled[]): Compiled[] {
  if (candidates.length < 2) return candidates;
  const top = candidates.reduce((a, b) => (compareRank(b.rank, a.rank) > 0 ? b : a));
  return candidates.filter((c) => compareRank(c.rank, top.rank) === 0);
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
