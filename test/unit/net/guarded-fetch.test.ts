import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { guardedFetch, OutboundError, refusalOf, type ResolvedAddress } from "../../../shared/net/guarded-fetch.js";

/** A resolver that answers from a table and counts its calls: refusals are decided on its answer, before any connection. */
const resolverOf = (table: Record<string, string[]>) =>
  vi.fn(async (host: string): Promise<ResolvedAddress[]> => (table[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));

const failure = async (promise: Promise<unknown>): Promise<OutboundError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
};

describe("refusalOf", () => {
  it.each([
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "fd00:ec2::254",
    "fc00::1",
    "fe80::1",
    "::",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "::ffff:10.0.0.1",
    "64:ff9b::a9fe:a9fe",
  ])("refuses %s (private, link-local, metadata or reserved)", (address) => {
    expect(refusalOf(address, true)).toBe("it is a private, link-local, metadata or reserved address");
  });

  it.each(["127.0.0.1", "127.10.0.1", "::1", "::ffff:127.0.0.1"])("refuses loopback %s unless loopback is allowed", (address) => {
    expect(refusalOf(address, false)).toBe("it is a loopback address");
    expect(refusalOf(address, true)).toBeUndefined();
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111"])("lets public %s through", (address) => {
    expect(refusalOf(address, false)).toBeUndefined();
  });
});

describe("guardedFetch", () => {
  let server: Server;
  let base: string;
  const routes: Record<string, (res: import("node:http").ServerResponse) => void> = {
    "/audio": (res) => res.writeHead(200, { "content-type": "audio/wav" }).end(Buffer.alloc(100, 1)),
    "/big": (res) => res.writeHead(200, { "content-length": "5000" }).end(Buffer.alloc(5000)),
    "/chunked": (res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i += 1) res.write(Buffer.alloc(1000));
      res.end();
    },
    "/to-metadata": (res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
    "/to-internal-name": (res) => res.writeHead(307, { location: "http://metadata.internal/x" }).end(),
    "/to-audio": (res) => res.writeHead(301, { location: "/audio" }).end(),
    "/loop": (res) => res.writeHead(302, { location: "/loop" }).end(),
    "/missing": (res) => res.writeHead(404).end(),
  };
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      (routes[req.url ?? ""] ?? routes["/missing"]!)(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("fetches a loopback URL when loopback is allowed, answering its bytes and type", async () => {
    const got = await guardedFetch(`${base}/audio`, { maxBytes: 1000, allowLoopback: true });

    expect(got.bytes).toStrictEqual(Buffer.alloc(100, 1));
    expect(got.contentType).toBe("audio/wav");
  });

  it("refuses a loopback address when loopback is not allowed (the default of a deployment)", async () => {
    const error = await failure(guardedFetch(`${base}/audio`, { maxBytes: 1000, allowLoopback: false }));

    expect(error.kind).toBe("refused_address");
  });

  it("refuses a host whose name resolves to a private address, deciding on the resolver's answer", async () => {
    const resolve = resolverOf({ "files.corp.example": ["10.0.0.5"] });

    const error = await failure(guardedFetch("http://files.corp.example/a.wav", { maxBytes: 1000, resolve }));

    expect(error).toMatchObject({ kind: "refused_address", message: expect.stringContaining("resolves to 10.0.0.5") });
    expect(resolve).toHaveBeenCalledWith("files.corp.example");
  });

  it("refuses a name that resolves to loopback when loopback is not allowed, and one with any refused address among its answers", async () => {
    const resolve = resolverOf({ "localtest.example": ["127.0.0.1"], "mixed.example": ["93.184.216.34", "169.254.169.254"] });

    expect((await failure(guardedFetch("http://localtest.example/", { maxBytes: 10, resolve, allowLoopback: false }))).kind).toBe("refused_address");
    expect((await failure(guardedFetch("http://mixed.example/", { maxBytes: 10, resolve, allowLoopback: true }))).kind).toBe("refused_address");
  });

  it("refuses a redirect to the metadata address, by literal and by name, without following it", async () => {
    const resolve = resolverOf({ "metadata.internal": ["169.254.169.254"] });

    const literal = await failure(guardedFetch(`${base}/to-metadata`, { maxBytes: 1000, allowLoopback: true, resolve }));
    const named = await failure(guardedFetch(`${base}/to-internal-name`, { maxBytes: 1000, allowLoopback: true, resolve }));

    expect(literal).toMatchObject({ kind: "refused_address", message: "169.254.169.254 may not be fetched: it is a private, link-local, metadata or reserved address" });
    expect(named.kind).toBe("refused_address");
    expect(resolve).toHaveBeenCalledWith("metadata.internal");
  });

  it("follows a redirect to an allowed address", async () => {
    const got = await guardedFetch(`${base}/to-audio`, { maxBytes: 1000, allowLoopback: true });

    expect(got.url).toBe(`${base}/audio`);
    expect(got.bytes.length).toBe(100);
  });

  it("stops after maxRedirects", async () => {
    const error = await failure(guardedFetch(`${base}/loop`, { maxBytes: 1000, allowLoopback: true, maxRedirects: 2 }));

    expect(error.kind).toBe("too_many_redirects");
  });

  it("refuses more than maxBytes, declared or streamed", async () => {
    expect((await failure(guardedFetch(`${base}/big`, { maxBytes: 1000, allowLoopback: true }))).kind).toBe("too_large");
    expect((await failure(guardedFetch(`${base}/chunked`, { maxBytes: 1000, allowLoopback: true }))).kind).toBe("too_large");
  });

  it("answers a non-2xx status as http_status", async () => {
    const error = await failure(guardedFetch(`${base}/missing`, { maxBytes: 1000, allowLoopback: true }));

    expect(error).toMatchObject({ kind: "http_status", status: 404 });
  });

  it.each(["file:///etc/passwd", "ftp://example.com/a", "not a url", "gopher://x"])("refuses %s as an invalid URL", async (url) => {
    expect((await failure(guardedFetch(url, { maxBytes: 10 }))).kind).toBe("invalid_url");
  });

  it("takes loopback's permission from OUTBOUND_ALLOW_LOOPBACK when not told", async () => {
    const before = process.env.OUTBOUND_ALLOW_LOOPBACK;
    try {
      process.env.OUTBOUND_ALLOW_LOOPBACK = "false";
      expect((await failure(guardedFetch(`${base}/audio`, { maxBytes: 1000 }))).kind).toBe("refused_address");
      process.env.OUTBOUND_ALLOW_LOOPBACK = "true";
      expect((await guardedFetch(`${base}/audio`, { maxBytes: 1000 })).bytes.length).toBe(100);
    } finally {
      process.env.OUTBOUND_ALLOW_LOOPBACK = before;
    }
  });
});
