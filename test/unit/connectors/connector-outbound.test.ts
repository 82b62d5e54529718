/**
 * The outbound guard. No test here sends traffic anywhere but loopback: refusals are checked on the
 * resolved address before any connection (stub resolvers list a loopback address first, so a broken guard
 * would connect there, never to the private address).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ALLOW_LOOPBACK_ENV, guardedLookup, OutboundRefused, outboundFetch, refusalFor, ResponseTooLarge, type Resolver } from "../../../shared/net/connector-outbound.js";

const resolving =
  (...addresses: string[]): Resolver =>
  (_host, _options, callback) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/redirect-inward") return void res.writeHead(302, { location: `http://inward.test:${port}/` }).end();
    if (req.url === "/redirect-ok") return void res.writeHead(302, { location: `http://outward.test:${port}/hello` }).end();
    if (req.url === "/big") return void res.end("x".repeat(10_000));
    res.end("hello");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));
const saved = process.env[ALLOW_LOOPBACK_ENV];
afterEach(() => {
  process.env[ALLOW_LOOPBACK_ENV] = saved;
});

describe("refusalFor", () => {
  it.each([
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.170.2",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "fd00:ec2::254",
    "fe80::1",
    "fc00::1",
    "::",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "64:ff9b::a9fe:a9fe",
    "::ffff:10.0.0.1",
  ])("refuses %s", (address) => {
    expect(refusalFor(address, true)).toBeDefined();
  });

  it.each(["1.1.1.1", "8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "172.32.0.1", "192.169.0.1"])("allows the public address %s", (address) => {
    expect(refusalFor(address, false)).toBeUndefined();
  });

  it("refuses loopback unless the setting allows it", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      expect(refusalFor(address, false), address).toMatch(/loopback/);
      expect(refusalFor(address, true), address).toBeUndefined();
    }
  });

  it("ignores the loopback setting inside AWS Lambda", async () => {
    const { loopbackAllowed } = await import("../../../shared/net/connector-outbound.js");
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    process.env.AWS_LAMBDA_FUNCTION_NAME = "fn";
    try {
      expect(loopbackAllowed()).toBe(false);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});

describe("guardedLookup", () => {
  const lookup = (resolver: Resolver) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) => guardedLookup(resolver, () => false)("svc.test", {}, (error, address) => resolve({ error, address })));

  it("refuses a name that resolves to the metadata address, or to any private address among public ones", async () => {
    for (const resolver of [resolving("169.254.169.254"), resolving("93.184.216.34", "10.0.0.5"), resolving("fd00:ec2::254")]) {
      const { error } = await lookup(resolver);
      expect(error).toBeInstanceOf(OutboundRefused);
    }
  });

  it("answers the address of a public name", async () => {
    expect(await lookup(resolving("93.184.216.34"))).toEqual({ error: null, address: "93.184.216.34" });
  });
});

describe("outboundFetch", () => {
  it("refuses before connecting when the name resolves inward", async () => {
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    const fetch = outboundFetch({ resolver: resolving("127.0.0.1", "169.254.169.254") });
    const error = await fetch(`http://metadata.test:${port}/`).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error & { cause?: Error }).cause ?? error)).toMatch(/Refused to connect to metadata\.test: 169\.254\.169\.254/);
  });

  it("re-checks every redirect: a public name redirecting to one that resolves inward is refused", async () => {
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    const resolver: Resolver = (host, options, callback) => (host === "inward.test" ? resolving("127.0.0.1", "10.0.0.1") : resolving("127.0.0.1"))(host, options, callback);
    const fetch = outboundFetch({ resolver });
    const error = await fetch(`http://outward.test:${port}/redirect-inward`).catch((e: Error) => e);
    expect(String((error as Error & { cause?: Error }).cause ?? error)).toMatch(/Refused to connect to inward\.test: 10\.0\.0\.1/);
    expect(await (await fetch(`http://outward.test:${port}/redirect-ok`)).text()).toBe("hello");
  });

  it("refuses loopback IP literals without the setting, reaches them with it", async () => {
    process.env[ALLOW_LOOPBACK_ENV] = "false";
    const error = await outboundFetch()(`http://127.0.0.1:${port}/`).catch((e: Error) => e);
    expect(String((error as Error & { cause?: Error }).cause ?? error)).toMatch(/loopback/);
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    expect(await (await outboundFetch()(`http://127.0.0.1:${port}/`)).text()).toBe("hello");
  });

  it("refuses schemes other than http and https, and caps response bodies", async () => {
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    await expect(outboundFetch()("file:///etc/passwd")).rejects.toBeInstanceOf(OutboundRefused);
    const capped = outboundFetch({ maxResponseBytes: 1000 });
    await expect(capped(`http://127.0.0.1:${port}/big`)).rejects.toBeInstanceOf(ResponseTooLarge);
  });
});
