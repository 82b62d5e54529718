import { describe, expect, it } from "vitest";
import { byResource, resourceOf, routes, rowFor, type RouteRow } from "../../../functions/routes.js";
import { canonicalNames, renameParameters, resourcePaths } from "../../../shared/http/resource-paths.js";

const aRow = (method: RouteRow["method"], path: string): RouteRow => ({ method, path, handler: `test/${method}${path}`, grants: {}, auth: "key", errors: "platform", streaming: false });

/** Every level whose variable children have more than one distinct name (what API Gateway refuses). */
function siblingVariables(paths: readonly string[]): Map<string, Set<string>> {
  const children = new Map<string, Set<string>>();
  for (const path of paths) {
    const segments = path.split("/").filter(Boolean);
    segments.forEach((segment, i) => {
      if (!segment.startsWith("{")) return;
      const parent = `/${segments.slice(0, i).join("/")}`;
      children.set(parent, (children.get(parent) ?? new Set()).add(segment));
    });
  }
  return new Map([...children].filter(([, names]) => names.size > 1));
}

describe("resource paths: one variable name per level (decision 0032)", () => {
  const synthetic = ["/v1/things/{thing_id_or_name}", "/v1/things/{thing_id}/share", "/v1/things/{name}/parts/{part}", "/v1/things/{thing_id}/parts/{part_id}/x", "/v1/things/mine", "/v1/other/{id}"];

  it("names each level by the smallest name the paths use there, and leaves single names alone", () => {
    expect(Object.fromEntries(canonicalNames(synthetic))).toStrictEqual({ "/v1/things": "name", "/v1/things/{}/parts": "part", "/v1/other": "id" });
    const resource = resourcePaths(synthetic);
    expect(synthetic.map(resource)).toStrictEqual(["/v1/things/{name}", "/v1/things/{name}/share", "/v1/things/{name}/parts/{part}", "/v1/things/{name}/parts/{part}/x", "/v1/things/mine", "/v1/other/{id}"]);
    expect(siblingVariables(synthetic.map(resource))).toStrictEqual(new Map());
  });

  it("does not depend on the order of the paths, and is idempotent", () => {
    const forward = resourcePaths(synthetic);
    const backward = resourcePaths(synthetic.toReversed());
    for (const path of synthetic) {
      expect(backward(path)).toBe(forward(path));
      expect(forward(forward(path))).toBe(forward(path));
    }
  });

  it("leaves a variable at a level the paths do not have as it is", () => {
    expect(resourcePaths(synthetic)("/v1/unknown/{x}/things")).toBe("/v1/unknown/{x}/things");
  });

  it("gives the route table's rows no sibling variables, and the three levels that had them one name each", () => {
    const before = siblingVariables(routes.map((row) => row.path));
    expect([...before.keys()]).toEqual(expect.arrayContaining(["/v1/workflows", "/v1/workflows/deployments", "/v1/connectors"]));
    expect(siblingVariables(routes.map((row) => resourceOf(row.path)))).toStrictEqual(new Map());
    expect(resourceOf("/v1/connectors/{connector_id_or_name}/tools")).toBe("/v1/connectors/{connector_id}/tools");
    expect(resourceOf("/v1/workflows/{workflow_name}/metrics")).toBe("/v1/workflows/{workflow_identifier}/metrics");
    expect(resourceOf("/v1/workflows/deployments/{name}/stop")).toBe("/v1/workflows/deployments/{deployment_id}/stop");
  });

  it("keeps every row its own API Gateway method, found by its resource path or its own path", () => {
    for (const row of routes) {
      expect(rowFor(row.method, resourceOf(row.path)), `${row.method} ${row.path}`).toBe(row);
      expect(rowFor(row.method, row.path), `${row.method} ${row.path}`).toBe(row);
    }
  });

  it("refuses two rows that would be one method on one resource", () => {
    const rows = [aRow("GET", "/v1/things/{thing_id}"), aRow("GET", "/v1/things/{name}")];
    expect(() => byResource(rows, resourcePaths(rows.map((r) => r.path)))).toThrow(/GET \/v1\/things\/\{thing_id\} and GET \/v1\/things\/\{name\} are one API Gateway method/);
  });
});

describe("renameParameters", () => {
  it("renames by position from one template to another", () => {
    expect(renameParameters({ name: "c-1", part: "p" }, "/v1/things/{name}/parts/{part}", "/v1/things/{thing_id}/parts/{part_id}")).toStrictEqual({ thing_id: "c-1", part_id: "p" });
  });

  it("keeps parameters of templates that do not line up, and null as null", () => {
    expect(renameParameters({ a: "1" }, "/v1/x/{a}", "/v1/y/{b}")).toStrictEqual({ a: "1" });
    expect(renameParameters({ a: "1" }, "/v1/x/{a}", "/v1/x/{a}/more")).toStrictEqual({ a: "1" });
    expect(renameParameters(null, "/v1/x/{a}", "/v1/x/{b}")).toBeNull();
  });
});
