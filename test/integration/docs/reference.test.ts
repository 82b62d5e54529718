import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../infra/openapi/document.js";
import { useEmbeddedApi } from "../../support/api.js";

const { api } = useEmbeddedApi({ tenant: "none" });

describe("GET /openapi.json", () => {
  it("serves the document generated from the route table, without a key, with the server it answered on", async () => {
    const response = await fetch(`${api.url}/openapi.json`);
    const body = await response.json();

    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const { servers, ...document } = body;
    expect(servers).toEqual([{ url: api.url, description: "This deployment" }]);
    expect(document).toEqual(await openApiDocument());
    expect((await new Validator().validate(body)).valid).toBe(true);
  });
});

describe("GET /docs", () => {
  it("serves the reference page and the renderer's files without a key", async () => {
    const page = await fetch(`${api.url}/docs`);
    const html = await page.text();
    const script = await fetch(`${api.url}/docs?asset=swagger-ui-bundle.js`);

    expect(page.status).toBe(200);
    expect(html).toContain("SwaggerUIBundle(");
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});
