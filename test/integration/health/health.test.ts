import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";

const { api } = useEmbeddedApi({ tenant: "none" });

describe("GET /health", () => {
  it("answers {status: ok} without a key, uncached, with a request id", async () => {
    const response = await fetch(`${api.url}/health`);

    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual({ status: "ok" });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers the same to a caller with a wrong key: it checks no key and says nothing about any workspace", async () => {
    const response = await fetch(`${api.url}/health`, { headers: { authorization: "Bearer sk-not-a-key" } });

    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual({ status: "ok" });
  });

  it("takes GET only: 405 with Allow for the rest", async () => {
    const response = await fetch(`${api.url}/health`, { method: "POST" });

    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });
});
