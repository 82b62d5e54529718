import { describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../../functions/routes.js";
import { routeMatcher } from "../../../infra/local/route-matcher.js";

const match = routeMatcher(routes);
const row = (method: RouteRow["method"], path: string): RouteRow => ({ method, path, handler: `test/${method} ${path}`, grants: {}, auth: "key", errors: "platform", streaming: false });

describe("the local route matcher", () => {
  it("matches a literal path", () => {
    expect(match("GET", "/v1/files")).toMatchObject({ row: { handler: "files/list" }, pathParameters: {} });
  });

  it("tells methods on the same path apart", () => {
    expect(match("POST", "/v1/files")).toMatchObject({ row: { handler: "files/upload" } });
  });

  it("extracts path parameters", () => {
    expect(match("GET", "/v1/files/0c6f5b38-1d2e-4b5c-9f3a-0a1b2c3d4e5f")).toStrictEqual({
      row: expect.objectContaining({ handler: "files/retrieve" }),
      resource: "/v1/files/{file_id}",
      pathParameters: { file_id: "0c6f5b38-1d2e-4b5c-9f3a-0a1b2c3d4e5f" },
    });
  });

  it("extracts a parameter in the middle of a path", () => {
    expect(match("POST", "/v1/files/uploads/u-1/complete")).toStrictEqual({
      row: expect.objectContaining({ handler: "files/complete-upload" }),
      resource: "/v1/files/uploads/{upload_id}/complete",
      pathParameters: { upload_id: "u-1" },
    });
  });

  it("prefers a literal segment to a parameter: POST /v1/files/uploads starts an upload", () => {
    expect(match("POST", "/v1/files/uploads")).toMatchObject({ row: { handler: "files/start-upload" }, pathParameters: {} });
  });

  it("does not fall back to the parameter route when the literal route lacks the method", () => {
    expect(match("GET", "/v1/files/uploads")).toStrictEqual({ methodMismatch: true, allowed: ["POST"] });
  });

  it("reports a method mismatch for a known path, with the methods it takes (for a 405's Allow)", () => {
    expect(match("PUT", "/v1/files")).toStrictEqual({ methodMismatch: true, allowed: ["GET", "POST"] });
    expect(match("POST", "/v1/models/m-1")).toStrictEqual({ methodMismatch: true, allowed: ["GET", "DELETE"] });
  });

  it("reports no match for an unknown path", () => {
    expect(match("GET", "/v1/nothing/here")).toStrictEqual({ methodMismatch: false });
  });

  it("does not match a path with more segments than any route", () => {
    expect(match("GET", "/v1/files/a/content/extra")).toStrictEqual({ methodMismatch: false });
  });

  it("ranks an earlier literal segment above a later one", () => {
    const local = routeMatcher([row("GET", "/a/{x}/c"), row("GET", "/a/b/{y}")]);

    expect(local("GET", "/a/b/c")).toStrictEqual({ row: expect.objectContaining({ path: "/a/b/{y}" }), resource: "/a/b/{y}", pathParameters: { y: "c" } });
  });

  it("does not depend on the order of the rows", () => {
    const local = routeMatcher([row("GET", "/a/{id}"), row("GET", "/a/me")]);

    expect(local("GET", "/a/me")).toMatchObject({ row: { path: "/a/me" } });
    expect(local("GET", "/a/you")).toMatchObject({ row: { path: "/a/{id}" }, pathParameters: { id: "you" } });
  });

  describe("with one variable name per level, as API Gateway's resource tree (decision 0032)", () => {
    it("sends the resource path and its names, not the row's: GET /v1/connectors/{connector_id_or_name}", () => {
      expect(match("GET", "/v1/connectors/c-1")).toStrictEqual({
        row: expect.objectContaining({ path: "/v1/connectors/{connector_id_or_name}", method: "GET" }),
        resource: "/v1/connectors/{connector_id}",
        pathParameters: { connector_id: "c-1" },
      });
    });

    it("renames the variable of a level below another: POST /v1/workflows/deployments/{deployment_id}/unharden", () => {
      expect(match("POST", "/v1/workflows/deployments/d-1/unharden")).toMatchObject({
        row: { path: "/v1/workflows/deployments/{deployment_id}/unharden" },
        resource: "/v1/workflows/deployments/{deployment_id}/unharden",
        pathParameters: { deployment_id: "d-1" },
      });
      expect(match("GET", "/v1/workflows/deployments/d-1/workers")).toMatchObject({
        row: { path: "/v1/workflows/deployments/{name}/workers" },
        resource: "/v1/workflows/deployments/{deployment_id}/workers",
        pathParameters: { deployment_id: "d-1" },
      });
      expect(match("GET", "/v1/workflows/w-1/metrics")).toMatchObject({
        row: { path: "/v1/workflows/{workflow_name}/metrics" },
        resource: "/v1/workflows/{workflow_identifier}/metrics",
        pathParameters: { workflow_identifier: "w-1" },
      });
    });

    it("answers a path two rows share (their paths differ only in names) with the methods of both, as one resource", () => {
      expect(match("POST", "/v1/connectors/c-1")).toStrictEqual({ methodMismatch: true, allowed: ["GET", "PATCH", "DELETE"] });
      expect(match("DELETE", "/v1/connectors/c-1")).toMatchObject({ row: { path: "/v1/connectors/{connector_id}" }, resource: "/v1/connectors/{connector_id}" });
    });

    it("picks the smallest name whatever the rows' order, and keeps literal siblings apart", () => {
      for (const rows of [
        [row("GET", "/a/{zed}"), row("DELETE", "/a/{alpha}/b"), row("GET", "/a/me")],
        [row("GET", "/a/me"), row("DELETE", "/a/{alpha}/b"), row("GET", "/a/{zed}")],
      ]) {
        const local = routeMatcher(rows);
        expect(local("GET", "/a/x")).toMatchObject({ row: { path: "/a/{zed}" }, resource: "/a/{alpha}", pathParameters: { alpha: "x" } });
        expect(local("DELETE", "/a/x/b")).toMatchObject({ row: { path: "/a/{alpha}/b" }, resource: "/a/{alpha}/b", pathParameters: { alpha: "x" } });
        expect(local("GET", "/a/me")).toMatchObject({ row: { path: "/a/me" }, resource: "/a/me", pathParameters: {} });
        expect(local("PUT", "/a/x")).toStrictEqual({ methodMismatch: true, allowed: ["GET"] });
      }
    });
  });
});
