/** The outbound settings the local stack hands its handlers (infra/local/outbound-env.ts). */
import { describe, expect, it } from "vitest";
import { loopbackWarning, outboundEnv, withServer } from "../../../infra/local/outbound-env.js";

describe("outboundEnv", () => {
  it("allows loopback by default and lists the backends' endpoints", () => {
    expect(outboundEnv({}, ["http://127.0.0.1:8000", "http://127.0.0.1:4569"])).toStrictEqual({
      OUTBOUND_ALLOW_LOOPBACK: "true",
      OUTBOUND_DENY_TARGETS: "127.0.0.1:8000,127.0.0.1:4569",
    });
  });

  it.each(["false", "true", "no"])("keeps the operator's OUTBOUND_ALLOW_LOOPBACK=%s", (value) => {
    expect(outboundEnv({ OUTBOUND_ALLOW_LOOPBACK: value }, []).OUTBOUND_ALLOW_LOOPBACK).toBe(value);
  });
});

describe("withServer", () => {
  it("adds the API server's own address and port", () => {
    expect(withServer("127.0.0.1:8000", "127.0.0.1", 8080)).toBe("127.0.0.1:8000,127.0.0.1:8080");
    expect(withServer("", "0.0.0.0", 8080)).toBe("0.0.0.0:8080");
    expect(withServer(undefined, "::", 8080)).toBe("[::]:8080");
  });

  it("reads a host name as both loopback addresses", () => {
    expect(withServer(undefined, "localhost", 8080)).toBe("127.0.0.1:8080,[::1]:8080");
  });
});

describe("loopbackWarning", () => {
  it.each(["0.0.0.0", "::", "192.168.1.20", "my-laptop.lan"])("warns when HOST=%s and loopback targets are allowed", (host) => {
    const warning = loopbackWarning(host, { OUTBOUND_ALLOW_LOOPBACK: "true" });
    expect(warning).toContain(`WARNING: HOST=${host} `);
    expect(warning).toContain("OUTBOUND_ALLOW_LOOPBACK=false");
  });

  it.each(["127.0.0.1", "::1", "localhost", "127.0.0.2"])("says nothing for the loopback HOST=%s", (host) => {
    expect(loopbackWarning(host, { OUTBOUND_ALLOW_LOOPBACK: "true" })).toBeUndefined();
  });

  it("says nothing when loopback targets are refused", () => {
    expect(loopbackWarning("0.0.0.0", { OUTBOUND_ALLOW_LOOPBACK: "false" })).toBeUndefined();
  });
});
