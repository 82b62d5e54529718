/**
 * API Gateway REST allows one variable path part among the children of a resource, but the spec's paths name
 * the same position differently (`/v1/connectors/{connector_id_or_name}` and `/v1/connectors/{connector_id}/share`).
 * The resource tree therefore uses one name per level, its *resource path*: the rows keep their spec paths (the
 * OpenAPI document, ROUTE_KEY, usage records), API Gateway sends the resource path and its parameters under the
 * canonical names, and the handler chain renames them back to the row's names by position
 * (docs/decisions/0032-one-variable-per-level.md).
 */

/** Whether a path segment is a variable (`{name}`). */
export const isVariable = (segment: string | undefined): boolean => !!segment && segment.length > 2 && segment.startsWith("{") && segment.endsWith("}");

const segmentsOf = (path: string) => path.split("/").filter(Boolean);
const nameOf = (segment: string) => segment.slice(1, -1);

/** The level a variable sits at: its parent path with every variable written `{}`, so that differently named parents are one level. */
const levelOf = (segments: readonly string[], index: number) => `/${segments.slice(0, index).map((s) => (isVariable(s) ? "{}" : s)).join("/")}`;

/**
 * The canonical variable name of every level that has a variable child: the smallest of the names the paths
 * use there (code-unit order). The rule reads neither the paths' order nor which area they belong to, so
 * reordering or moving rows never renames a deployed resource; a new name sorting before a level's current
 * one does (which an existing deployment takes in two steps: docs/deploy.md).
 */
export function canonicalNames(paths: Iterable<string>): Map<string, string> {
  const names = new Map<string, string>();
  for (const path of paths) {
    const segments = segmentsOf(path);
    segments.forEach((segment, i) => {
      if (!isVariable(segment)) return;
      const level = levelOf(segments, i);
      const name = nameOf(segment);
      const current = names.get(level);
      if (current === undefined || name < current) names.set(level, name);
    });
  }
  return names;
}

/**
 * The resource path of `path` in a tree built from `paths`: every variable written with its level's canonical
 * name. Pure and total: a path of the table or its resource path (any spelling of its variables) gives the
 * same answer; a variable at a level no path of the table has keeps its name.
 */
export function resourcePaths(paths: Iterable<string>): (path: string) => string {
  const names = canonicalNames(paths);
  return (path) => {
    const segments = segmentsOf(path);
    return `/${segments.map((segment, i) => (isVariable(segment) ? `{${names.get(levelOf(segments, i)) ?? nameOf(segment)}}` : segment)).join("/")}`;
  };
}

/**
 * Path parameters sent under template `from`, renamed to the names template `to` gives the same positions
 * (zipping the two templates' segments). The handler chain renames API Gateway's (canonical) parameters to its
 * row's; parameters between identical templates, or templates that do not line up, are left as they came.
 */
export function renameParameters(
  parameters: Record<string, string> | null | undefined,
  from: string,
  to: string,
): Record<string, string> | null {
  if (!parameters) return null;
  if (from === to) return parameters;
  const source = segmentsOf(from);
  const target = segmentsOf(to);
  const aligned = source.length === target.length && source.every((s, i) => isVariable(s) === isVariable(target[i]) && (isVariable(s) || s === target[i]));
  if (!aligned) return parameters;
  const renamed: Record<string, string> = {};
  source.forEach((segment, i) => {
    if (!isVariable(segment)) return;
    const value = parameters[nameOf(segment)];
    if (value !== undefined) renamed[nameOf(target[i]!)] = value;
  });
  return renamed;
}
