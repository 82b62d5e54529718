/**
 * The OpenAPI document (GET /openapi.json), generated from the route table: valid OpenAPI 3.1, every row an
 * operation, and the spec's operations as Mistral's document has them, except the differences listed in
 * infra/openapi/differences.tsv. Spec operations no row serves yet are reported, not failed: a branch
 * that adds a row only has to match (or list why not).
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../functions/routes.js";
import { compareWithMistral, differenceLine, operationsOf, type Comparison } from "../../infra/openapi/compare.js";
import { openApiDocument } from "../../infra/openapi/document.js";
import { intendedDifferences, mistralReference, specOperations } from "../../infra/openapi/reference.js";
import { routeKey } from "../../shared/http/policy.js";

let document: Record<string, any>;
let comparison: Comparison;
beforeAll(async () => {
  document = await openApiDocument();
  comparison = compareWithMistral(document, mistralReference());
});

const operation = (row: Pick<RouteRow, "method" | "path">) => document.paths[row.path]?.[row.method.toLowerCase()];
const validate = async (doc: unknown) => new Validator().validate(doc as Record<string, unknown>);

describe("the OpenAPI document of GET /openapi.json", () => {
  it("is valid OpenAPI 3.1.0, version 1.0.0", async () => {
    const result = await validate(document);

    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" } });
  });

  it("has one operation per route-table row and no other, each with its own operation id", () => {
    expect(operationsOf(document).toSorted()).toEqual(routes.map(routeKey).toSorted());
    const ids = routes.map((row) => operation(row).operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("tags each operation with its spec group, and lists every tag it uses", () => {
    const groups = new Map(specOperations().map((op) => [`${op.method} ${op.path}`, op.group]));
    const tags = new Set(document.tags.map((t: { name: string }) => t.name));
    for (const row of routes) {
      const op = operation(row);
      expect(op.tags, routeKey(row)).toHaveLength(1);
      expect(tags.has(op.tags[0]), routeKey(row)).toBe(true);
      if (groups.has(routeKey(row))) expect(op.tags[0], routeKey(row)).toBe(groups.get(routeKey(row)));
    }
  });

  it("marks extension rows, keeps public rows keyless and documents the bearer scheme", () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.security).toEqual([{ bearer: [] }]);
    for (const row of routes) {
      expect(operation(row)["x-extension"], routeKey(row)).toBe(row.extension ? true : undefined);
      if (row.auth === "public") expect(operation(row).security, routeKey(row)).toEqual([]);
      else expect(operation(row).responses["401"], routeKey(row)).toEqual({ $ref: "#/components/responses/Unauthorized" });
    }
  });

  it("documents each row's success answer: streamed events, redirects, bytes, empty bodies", () => {
    for (const row of routes) {
      const success = operation(row).responses[String(row.doc?.status ?? 200)];
      expect(success, routeKey(row)).toBeDefined();
      if (row.streaming) expect(Object.keys(success.content), routeKey(row)).toContain("text/event-stream");
      if (row.doc?.status === 302) expect(success.headers.Location, routeKey(row)).toBeDefined();
      if (row.doc?.media) expect(Object.keys(success.content), routeKey(row)).toContain(row.doc.media);
      if (row.doc?.status === 204) expect(success.content, routeKey(row)).toBeUndefined();
    }
    expect(operation({ method: "POST", path: "/v1/files" }).requestBody.content["multipart/form-data"].schema.properties.file).toMatchObject({ type: "string", contentMediaType: "application/octet-stream" });
  });

  it("answers errors in the envelope of the row's family", () => {
    const family = { platform: "Platform", workflow: "Workflow", observability: "Observability" };
    for (const row of routes) expect(operation(row).responses.default, routeKey(row)).toEqual({ $ref: `#/components/responses/${family[row.errors]}Error` });
    expect(document.components.schemas.WorkflowError.properties.code).toMatchObject({ pattern: "^WF_\\d{4}$" });
    expect(document.components.schemas.PlatformValidationError.required).toEqual(["detail"]);
  });

  it("stays valid for a new row that declares no schema and says nothing about its answer", async () => {
    const row: RouteRow = { method: "POST", path: "/v1/new-things/{thing_id}/poke", handler: "things/poke", grants: {}, auth: "key", permission: "files:read", errors: "workflow", streaming: false };
    const doc = await openApiDocument({ rows: [...routes, row], specOf: async (r) => (r === row ? {} : (await import("../../infra/openapi/document.js")).declaredSpec(r)) });

    expect((await validate(doc)).valid).toBe(true);
    expect(doc.paths["/v1/new-things/{thing_id}/poke"].post).toMatchObject({
      parameters: [{ name: "thing_id", in: "path", required: true }],
      responses: { "200": { content: { "application/json": { schema: {} } } }, "404": { $ref: "#/components/responses/WorkflowError" } },
    });
  });
});

describe("the document against Mistral's OpenAPI (vendored in infra/openapi/mistral-reference.json)", () => {
  it("reports the spec operations no row serves yet", () => {
    const served = new Set(routes.map(routeKey));
    const expected = specOperations().map((op) => `${op.method} ${op.path}`).filter((key) => !served.has(key));

    expect(comparison.notServed).toEqual(expected);
    expect(document.info["x-spec-operations-not-served"]).toEqual(expected);
    console.info(`OpenAPI reference: ${comparison.served.length} spec operations served, ${comparison.notServed.length} not served yet:\n  ${comparison.notServed.join("\n  ")}`);
  });

  it("serves the spec's operations at Mistral's paths and methods, with its required fields and success codes, except the listed differences", () => {
    const listed = new Set(intendedDifferences().map((d) => `${d.key}\t${d.kind}\t${d.detail}`));
    const unlisted = comparison.differences.map(differenceLine).filter((line) => !listed.has(line));

    expect(unlisted, "differences from Mistral's document: match it, or list the line with a reason in infra/openapi/differences.tsv").toEqual([]);
  });

  it("lists only differences that still exist (those of operations not served yet wait for their row)", () => {
    const found = new Set(comparison.differences.map(differenceLine));
    const served = new Set(comparison.served);
    const stale = intendedDifferences().filter((d) => served.has(d.key) && !found.has(`${d.key}\t${d.kind}\t${d.detail}`));

    expect(stale.map((d) => `${d.key}\t${d.kind}\t${d.detail}`)).toEqual([]);
    for (const d of intendedDifferences()) expect(d.reason?.trim(), `${d.key} ${d.kind} needs a reason`).toBeTruthy();
  });

  it("notices a route that drifts from Mistral's: a required field, a success code, a media type", () => {
    const drifted = structuredClone(document);
    const upload = drifted.paths["/v1/files"].post;
    upload.requestBody.content["multipart/form-data"].schema.required = ["file", "purpose"];
    drifted.paths["/v1/models/{model_id}"].delete.responses = { "204": { description: "No content" } };
    delete drifted.paths["/v1/workflows/events/stream"].get.responses["200"].content["text/event-stream"];
    const found = compareWithMistral(drifted, mistralReference()).differences.map(differenceLine);

    expect(found).toContain("POST /v1/files\trequired-body-fields\tours=file,purpose mistral=file");
    expect(found).toContain("DELETE /v1/models/{model_id}\tsuccess-code\tours=204 mistral=200");
    expect(found.some((line) => line.startsWith("GET /v1/workflows/events/stream\tsuccess-media"))).toBe(true);
  });

  it("takes Mistral's operation ids and its deprecations for the operations both documents have", () => {
    const reference = mistralReference();
    for (const key of comparison.served.filter((k) => reference[k])) {
      const [method, path] = key.split(" ") as [RouteRow["method"], string];
      expect(operation({ method, path }).operationId, key).toBe(reference[key]!.operationId);
      expect(operation({ method, path }).deprecated, key).toBe(reference[key]!.deprecated);
    }
  });
});
