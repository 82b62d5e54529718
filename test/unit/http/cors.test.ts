import { describe, expect, it } from "vitest";
import { corsHeaders, corsOrigins, gatewayCorsHeaders, preflightHeaders } from "../../../shared/http/cors.js";

describe("the CORS_ORIGINS setting", () => {
  it("is off when empty, * for any origin, or a list of origins", () => {
    expect(corsOrigins(undefined)).toBeUndefined();
    expect(corsOrigins("  ")).toBeUndefined();
    expect(corsOrigins("*")).toBe("*");
    expect(corsOrigins("https://app.example.test, http://localhost:3000")).toEqual(["https://app.example.test", "http://localhost:3000"]);
  });

  it("refuses what is not an origin, naming it", () => {
    expect(() => corsOrigins("https://app.example.test/path")).toThrow(/https:\/\/app\.example\.test\/path is not an origin/);
    expect(() => corsOrigins("app.example.test")).toThrow(/not an origin/);
  });
});

describe("CORS headers", () => {
  const list = ["https://app.example.test"];

  it("grant a listed origin (and say they vary by origin), not another; a gateway answer echoes any origin", () => {
    expect(corsHeaders({ Origin: "https://app.example.test" }, list)).toMatchObject({ "access-control-allow-origin": "https://app.example.test", vary: "Origin" });
    expect(corsHeaders({ origin: "https://evil.example.test" }, list)).toEqual({ vary: "Origin" });
    expect(gatewayCorsHeaders({ origin: "https://evil.example.test" }, list)).toMatchObject({ "access-control-allow-origin": "https://evil.example.test" });
    expect(corsHeaders({ origin: "https://app.example.test" }, undefined)).toEqual({});
  });

  it("answer a preflight with the path's methods, OPTIONS and the headers clients send", () => {
    expect(preflightHeaders({ origin: "https://x.test" }, ["GET", "POST"], "*")).toMatchObject({
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": "Authorization, Content-Type, x-api-key, Last-Event-ID, Accept, x-response-cache, x-response-cache-ttl",
    });
  });
});
