/**
 * Every method of the installed official SDK has a route, or a line with a reason in infra/openapi/sdk-gaps.tsv;
 * and the README's status column says what that data says (`npm run sdk-coverage -- --write` brings it up to date).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { gapLine, parseGaps, sdkMethods, unservedMethods, withSdkStatus, type SdkMethod } from "../../infra/openapi/sdk-methods.js";

const methods = sdkMethods(join(ROOT_DIR, "node_modules/@mistralai/mistralai"));
const unserved = unservedMethods(methods, routes);
const gaps = parseGaps(readFileSync(join(ROOT_DIR, "infra/openapi/sdk-gaps.tsv"), "utf8"));

const aMethod = (over: Partial<SdkMethod>): SdkMethod => ({ namespace: "things", name: "things.get", func: "thingsGet", http: "GET", path: "/v1/things/{id}", ...over });

describe("the official SDK's methods", () => {
  it("are all read from the installed SDK: its client tree, each method's HTTP method and path", () => {
    // 2.7.0 calls 245 HTTP operations; a newer SDK changes the count, and this test says which methods it adds.
    expect(methods.length).toBeGreaterThanOrEqual(245);
    expect(methods).toContainEqual({
      namespace: "beta.observability.judges",
      name: "beta.observability.judges.create",
      func: "betaObservabilityJudgesCreate",
      http: "POST",
      path: "/v1/observability/judges",
    });
    expect(methods.find((m) => m.name === "chat.stream")).toMatchObject({ http: "POST", path: "/v1/chat/completions" });
    expect(new Set(methods.map((m) => m.name)).size).toBe(methods.length);
  });

  it("each have a route, or a line in infra/openapi/sdk-gaps.tsv saying why not", () => {
    const listed = new Set(gaps.map((gap) => gap.name));
    expect(unserved.filter((m) => !listed.has(m.name)).map((m) => gapLine(m, "<why>"))).toEqual([]);
  });

  it("lists no gap that is served, no method the SDK does not have, and a reason on every line", () => {
    const open = new Set(unserved.map((m) => m.name));
    expect(gaps.filter((gap) => !open.has(gap.name)).map((gap) => gap.name)).toEqual([]);
    const byName = new Map(methods.map((m) => [m.name, m]));
    for (const gap of gaps) {
      const method = byName.get(gap.name)!;
      expect(gap.call).toBe(`${method.http} ${method.path}`);
      expect(gap.reason.length, gap.name).toBeGreaterThan(10);
    }
  });

  it("are what the README's status column says, group by group", () => {
    const readme = readFileSync(join(ROOT_DIR, "README.md"), "utf8");
    expect(withSdkStatus(readme, methods, unserved), "run npm run sdk-coverage -- --write").toBe(readme);
  });
});

describe("matching an SDK method to a route", () => {
  const row = (method: string, path: string) => ({ ...routes[0]!, method, path }) as (typeof routes)[number];

  it("takes a route with other parameter names, and a scope spelled out where the route takes it as a parameter", () => {
    const rows = [row("GET", "/v1/things/{thing_id}"), row("GET", "/v1/connectors/{consumer_scope}/items")];
    const served = [aMethod({}), aMethod({ name: "c.list", path: "/v1/connectors/workspace/items" })];
    expect(unservedMethods(served, rows)).toEqual([]);
  });

  it("counts a literal segment that a parameter row would swallow as a gap", () => {
    const archive = aMethod({ name: "workflows.bulkArchive", http: "PUT", path: "/v1/workflows/archive" });
    expect(unservedMethods([archive], [row("PUT", "/v1/workflows/{workflow_identifier}")])).toEqual([archive]);
    expect(unservedMethods([archive], [row("PUT", "/v1/workflows/{workflow_identifier}"), row("PUT", "/v1/workflows/archive")])).toEqual([]);
  });

  it("writes the status word from the methods under a row's namespaces, keeping its note", () => {
    const readme = [
      "| group | SDK | status |",
      "| Things | `things` | served (a note) |",
      "| Others | `others`, `.sub` | served |",
      "| Usage | — | served |",
    ].join("\n");
    const all = [aMethod({}), aMethod({ namespace: "others", name: "others.a" }), aMethod({ namespace: "others.sub", name: "others.sub.b" })];
    const written = withSdkStatus(readme, all, [all[0]!, all[2]!]);
    expect(written.split("\n").slice(1)).toEqual(["| Things | `things` | not served (a note) |", "| Others | `others`, `.sub` | 1 of 2 SDK methods served |", "| Usage | — | served |"]);
  });
});
