import { describe, expect, it } from "vitest";
import { handler as asset } from "../../../functions/console/asset.js";
import { handler as page } from "../../../functions/console/page.js";
import { anEvent, invoke } from "../../support/builders.js";

/** Public routes: no authorizer context. */
const get = (path: string, params?: Record<string, string>) => anEvent({ path, pathParameters: params, caller: null });

describe("GET /console", () => {
  it("answers the HTML entry, loading its hashed script and stylesheet by relative URLs, under a strict CSP naming the storage origin", async () => {
    const answer = await invoke(page, get("/console"));

    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.headers?.["cache-control"]).toBe("no-cache");
    expect(answer.body).toMatch(/<script type="module" src="console\/app-[A-Z0-9]+\.js"><\/script>/);
    expect(answer.body).toMatch(/<link rel="stylesheet" href="console\/app-[A-Z0-9]+\.css">/);
    expect(answer.body).not.toMatch(/https?:\/\//);
    // No inline script: the only <script> has a src.
    expect(answer.body.match(/<script/g)).toHaveLength(1);
    const csp = String(answer.headers?.["content-security-policy"] ?? "");
    expect(csp.split("; ")).toEqual(
      expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", expect.stringMatching(/^connect-src 'self' https?:\/\/\S+$/)]),
    );
    expect(csp).not.toContain("unsafe");
  });
});

describe("GET /console/{asset}", () => {
  it("serves a built file named by the entry, cached for a year", async () => {
    const entry = await invoke(page, get("/console"));
    const script = /console\/(app-[A-Z0-9]+\.js)/.exec(entry.body)![1]!;

    const answer = await invoke(asset, get(`/console/${script}`, { asset: script }));

    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(answer.headers?.["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(answer.body.length).toBeGreaterThan(10_000);
  });

  it("answers 404 for a name the build does not have and 422 for one that is not an asset's", async () => {
    const missing = await invoke(asset, get("/console/app-NOTBUILT.js", { asset: "app-NOTBUILT.js" }));
    const odd = await invoke(asset, get("/console/package.json%00", { asset: "package.json\u0000" }));

    expect(missing.statusCode).toBe(404);
    expect(missing.json).toMatchObject({ code: "console_asset_not_found" });
    expect(odd.statusCode).toBe(422);
  });
});
