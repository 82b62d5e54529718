import { describe, expect, it } from "vitest";
import { handler as openapi } from "../../../functions/docs/openapi.js";
import { handler as page } from "../../../functions/docs/page.js";
import { anEvent, invoke } from "../../support/builders.js";

/** Public routes: no authorizer context. */
const get = (path: string, query: Record<string, string> = {}, requestContext: Record<string, string> = {}) => {
  const event = anEvent({ path, resource: path, query, caller: null });
  return { ...event, requestContext: { ...event.requestContext, ...requestContext } };
};

describe("GET /openapi.json", () => {
  it("answers the generated document without a key, with this deployment's base URL (stage kept) as its server", async () => {
    const answer = await invoke(openapi, get("/openapi.json", {}, { domainName: "abc.execute-api.eu-west-1.amazonaws.com", path: "/prod/openapi.json" }));

    expect(answer.statusCode).toBe(200);
    expect(answer.json).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" } });
    expect(answer.json.servers).toEqual([{ url: "https://abc.execute-api.eu-west-1.amazonaws.com/prod", description: "This deployment" }]);
    expect(answer.json.paths["/v1/models"].get.operationId).toBe("list_models_v1_models_get");
    expect(answer.headers?.["x-request-id"]).toBeTruthy();
  });
});

describe("GET /docs", () => {
  it("answers the reference page, which loads the renderer from this route and the document by relative URLs (no CDN)", async () => {
    const answer = await invoke(page, get("/docs"));

    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.body).toContain('url: "openapi.json"');
    expect(answer.body).toMatch(/<script src="docs\?asset=swagger-ui-bundle\.js&amp;v=[\d.]+">/);
    expect(answer.body).not.toMatch(/https?:\/\//);
  });

  it("serves the renderer's script and stylesheet as ?asset=, cached", async () => {
    const script = await invoke(page, get("/docs", { asset: "swagger-ui-bundle.js" }));
    const style = await invoke(page, get("/docs", { asset: "swagger-ui.css" }));

    expect(script.statusCode).toBe(200);
    expect(script.headers?.["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(script.body).toContain("SwaggerUIBundle");
    expect(style.headers?.["content-type"]).toBe("text/css; charset=utf-8");
    expect(style.headers?.["cache-control"]).toContain("immutable");
  });

  it("refuses an asset it does not serve with 422 (no file outside the renderer's is ever read)", async () => {
    const answer = await invoke(page, get("/docs", { asset: "../../package.json" }));

    expect(answer.statusCode).toBe(422);
    expect(answer.json.detail[0].loc).toEqual(["query", "asset"]);
  });
});
