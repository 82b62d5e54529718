/**
 * The outbound guard (shared/net/outbound.ts). No test here sends traffic anywhere but loopback: refusals
 * are decided on literal addresses and on injected DNS answers before any connection (injected answers list
 * a loopback address first where loopback is allowed, so a broken guard would connect there, never inward).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ALLOW_LOOPBACK_ENV, fetchBytes, guardedLookup, loopbackAllowed, OutboundError, outboundCause, outboundFetch, refusalOf, type ResolvedAddress } from "../../../shared/net/outbound.js";

/** A resolver that answers from a table and counts its calls. */
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

const PRIVATE = "it is a private, link-local, metadata or reserved address";

describe("refusalOf", () => {
  it.each([
    ["0.0.0.0", "this network"],
    ["0.1.2.3", "this network"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["169.254.169.254", "EC2 metadata"],
    ["169.254.170.2", "ECS metadata"],
    ["192.0.0.192", "IETF"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::10.0.0.1", "IPv4-compatible"],
    ["fd00:ec2::254", "EC2 metadata (IPv6)"],
    ["fc00::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["64:ff9b::a9fe:a9fe", "NAT64"],
    ["64:ff9b::808:808", "NAT64 (reaches any IPv4 address)"],
    ["2002:a9fe:a9fe::", "6to4"],
    ["2001:0:4136:e378::1", "Teredo"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped metadata, hex"],
    ["0:0:0:0:0:ffff:10.0.0.1", "IPv4-mapped private, long form"],
    ["[::ffff:192.168.0.1]", "IPv4-mapped private, bracketed"],
    ["::ffff:0.0.0.0", "IPv4-mapped this network"],
  ])("refuses %s (%s)", (address) => {
    expect(refusalOf(address, true)).toBe(PRIVATE);
  });

  it.each([
    ["::ffff:0:7f00:1", "IPv4-translated loopback (RFC 2765)"],
    ["::ffff:0:a00:1", "IPv4-translated private"],
    ["::ffff:0:127.0.0.1", "IPv4-translated loopback, dotted"],
    ["0:0:0:0:ffff:0:a9fe:a9fe", "IPv4-translated metadata, long form"],
    ["64:ff9b:1::a00:1", "local-use NAT64"],
    ["2002:808:808::1", "6to4 of a public address (relayed)"],
    ["2001:0:808:808::f7f7:f7f7", "Teredo of a public server and client (relayed)"],
    ["2001:2::1", "benchmarking"],
    ["2001:10::1", "ORCHID"],
    ["3fff::1", "documentation (RFC 9637)"],
    ["100::1", "discard"],
    ["5f00::1", "SRv6 SIDs, outside 2000::/3"],
    ["4000::1", "outside 2000::/3 (unassigned)"],
    ["::ffff:192.31.196.1", "IPv4-mapped AS112"],
    ["192.52.193.1", "AMT"],
    ["192.175.48.1", "AS112 direct delegation"],
    ["192.0.0.9", "IETF (PCP anycast)"],
  ])("refuses %s (%s): only global unicast passes", (address) => {
    expect(refusalOf(address, true)).toBe(PRIVATE);
  });

  it.each(["2a00:1450:4001:81b::200e", "2001:4860:4860::8888", "2c0f:fb50:4003::1", "2400:cb00::1", "::ffff:0:808:808", "::ffff:0:8.8.4.4", "223.255.255.1", "1.0.0.1"])("lets global unicast %s through (translated forms judged as their IPv4 address)", (address) => {
    expect(refusalOf(address, false)).toBeUndefined();
  });

  it.each(["127.0.0.1", "127.10.0.1", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1"])("refuses loopback %s unless loopback is allowed", (address) => {
    expect(refusalOf(address, false)).toBe("it is a loopback address");
    expect(refusalOf(address, true)).toBeUndefined();
  });

  it.each(["93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("lets public %s through", (address) => {
    expect(refusalOf(address, false)).toBeUndefined();
  });

  it("refuses what is not an IP address", () => {
    expect(refusalOf("example.com", true)).toBe("it is not an IP address");
  });
});

describe("the loopback setting (OUTBOUND_ALLOW_LOOPBACK)", () => {
  const saved = { allow: process.env[ALLOW_LOOPBACK_ENV], lambda: process.env.AWS_LAMBDA_FUNCTION_NAME };
  afterEach(() => {
    process.env[ALLOW_LOOPBACK_ENV] = saved.allow;
    if (saved.lambda === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    else process.env.AWS_LAMBDA_FUNCTION_NAME = saved.lambda;
  });

  it("allows loopback only when set to true, and never inside AWS Lambda", () => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    process.env[ALLOW_LOOPBACK_ENV] = "false";
    expect(loopbackAllowed()).toBe(false);
    expect(refusalOf("127.0.0.1")).toBe("it is a loopback address");
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    expect(loopbackAllowed()).toBe(true);
    expect(refusalOf("127.0.0.1")).toBeUndefined();
    process.env.AWS_LAMBDA_FUNCTION_NAME = "fn";
    expect(loopbackAllowed()).toBe(false);
  });

  it("never allows anything but loopback", () => {
    process.env[ALLOW_LOOPBACK_ENV] = "true";
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    expect(refusalOf("169.254.169.254")).toBe(PRIVATE);
    expect(refusalOf("10.0.0.1")).toBe(PRIVATE);
  });
});

describe("guardedLookup", () => {
  const lookup = (answers: string[], all = false) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup(resolverOf({ "svc.test": answers }), () => false)("svc.test", { all }, (error, address) => resolve({ error, address })),
    );

  it("refuses a name when any of its addresses is refused", async () => {
    for (const answers of [["169.254.169.254"], ["93.184.216.34", "10.0.0.5"], ["fd00:ec2::254"], ["2606:4700:4700::1111", "::ffff:a9fe:a9fe"], ["127.0.0.1"]]) {
      const { error } = await lookup(answers);
      expect(error, answers.join()).toBeInstanceOf(OutboundError);
      expect((error as OutboundError).kind).toBe("refused_address");
    }
  });

  it("answers the checked addresses of a public name, one or all", async () => {
    expect(await lookup(["93.184.216.34"])).toEqual({ error: null, address: "93.184.216.34" });
    expect(await lookup(["93.184.216.34", "2606:4700:4700::1111"], true)).toEqual({
      error: null,
      address: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:4700:4700::1111", family: 6 },
      ],
    });
  });

  it("fails a name without addresses", async () => {
    expect((await lookup([])).error).toMatchObject({ code: "ENOTFOUND" });
  });
});

describe("outboundFetch and fetchBytes", () => {
  let server: Server;
  let base: string;
  let port: number;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    "/audio": (res) => res.writeHead(200, { "content-type": "audio/wav" }).end(Buffer.alloc(100, 1)),
    "/big": (res) => res.writeHead(200, { "content-length": "5000" }).end(Buffer.alloc(5000)),
    "/chunked": (res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i += 1) res.write(Buffer.alloc(1000));
      res.end();
    },
    "/to-metadata": (res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
    "/to-mapped-metadata": (res) => res.writeHead(302, { location: "http://[::ffff:169.254.169.254]/latest/meta-data/" }).end(),
    "/to-internal-name": (res) => res.writeHead(307, { location: `http://inward.test:${port}/audio` }).end(),
    "/to-other-origin": (res) => res.writeHead(302, { location: `http://outward.test:${port}/audio` }).end(),
    "/to-file": (res) => res.writeHead(302, { location: "file:///etc/passwd" }).end(),
    "/to-audio": (res) => res.writeHead(301, { location: "/audio" }).end(),
    "/loop": (res) => res.writeHead(302, { location: "/loop" }).end(),
    "/slow": () => undefined,
    "/missing": (res) => res.writeHead(404).end(),
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      (routes[req.url ?? ""] ?? routes["/missing"]!)(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("fetches a loopback URL when loopback is allowed, answering its bytes, type and URL", async () => {
    const got = await fetchBytes(`${base}/audio`, { maxBytes: 1000, allowLoopback: true });

    expect(got).toStrictEqual({ bytes: Buffer.alloc(100, 1), contentType: "audio/wav", url: `${base}/audio` });
  });

  it("refuses a loopback literal when loopback is not allowed (a deployment), without connecting", async () => {
    const before = seen.length;
    const error = await failure(fetchBytes(`${base}/audio`, { maxBytes: 1000, allowLoopback: false }));

    expect(error).toMatchObject({ kind: "refused_address", message: "127.0.0.1 may not be fetched: it is a loopback address" });
    expect(seen.length).toBe(before);
  });

  it.each(["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://[::ffff:a9fe:a9fe]/", "http://0x7f000001.test/", "http://10.0.0.1/", "http://0.0.0.0/"])(
    "refuses the literal or refused host of %s before any connection",
    async (url) => {
      const resolve = resolverOf({ "0x7f000001.test": ["127.0.0.1"] });
      const error = await failure(outboundFetch({ resolve, allowLoopback: false })(url));
      expect(error.kind).toBe("refused_address");
    },
  );

  it("refuses a host whose name resolves to a refused address, deciding on the resolver's answer", async () => {
    const resolve = resolverOf({ "files.corp.example": ["127.0.0.1", "10.0.0.5"] });

    const error = await failure(fetchBytes(`http://files.corp.example:${port}/audio`, { maxBytes: 1000, resolve, allowLoopback: true }));

    expect(error).toMatchObject({ kind: "refused_address", message: "The host files.corp.example resolves to 10.0.0.5, which may not be fetched: " + PRIVATE });
    expect(resolve).toHaveBeenCalledWith("files.corp.example");
  });

  it("connects to the address it checked: a name whose second answer points inward is refused at its own connection", async () => {
    let calls = 0;
    const resolve = vi.fn(async (): Promise<ResolvedAddress[]> => [{ address: (calls += 1) === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }]);
    const guarded = outboundFetch({ resolve, allowLoopback: true });
    try {
      expect((await guarded(`http://rebind.test:${port}/audio`)).status).toBe(200);
      const error = await failure(guarded(`http://rebind.test:${port + 1}/audio`));
      expect(error.message).toContain("resolves to 169.254.169.254");
    } finally {
      await guarded.close();
    }
  });

  it("refuses a redirect to a refused address, by literal, mapped literal and name, without following it", async () => {
    const resolve = resolverOf({ "inward.test": ["127.0.0.1", "169.254.169.254"] });

    const literal = await failure(fetchBytes(`${base}/to-metadata`, { maxBytes: 1000, allowLoopback: true, resolve }));
    const mapped = await failure(fetchBytes(`${base}/to-mapped-metadata`, { maxBytes: 1000, allowLoopback: true, resolve }));
    const named = await failure(fetchBytes(`${base}/to-internal-name`, { maxBytes: 1000, allowLoopback: true, resolve }));

    expect(literal).toMatchObject({ kind: "refused_address", message: `169.254.169.254 may not be fetched: ${PRIVATE}` });
    expect(mapped.kind).toBe("refused_address");
    expect(named).toMatchObject({ kind: "refused_address", message: expect.stringContaining("inward.test resolves to 169.254.169.254") });
  });

  it("refuses a redirect to a scheme other than http and https", async () => {
    expect((await failure(fetchBytes(`${base}/to-file`, { maxBytes: 1000, allowLoopback: true }))).kind).toBe("invalid_url");
  });

  it("follows a redirect to an allowed address, and drops the caller's headers when it leads to another origin", async () => {
    const resolve = resolverOf({ "outward.test": ["127.0.0.1"] });
    const guarded = outboundFetch({ resolve, allowLoopback: true });
    try {
      const same = await guarded(`${base}/to-audio`, { headers: { authorization: "Bearer same" } });
      expect(same.url).toBe(`${base}/audio`);
      expect(seen.at(-1)).toMatchObject({ url: "/audio", headers: { authorization: "Bearer same" } });

      const other = await guarded(`${base}/to-other-origin`, { headers: { authorization: "Bearer secret", "x-api-key": "k", accept: "audio/*" } });
      expect(other.status).toBe(200);
      expect(seen.at(-1)!.headers).toMatchObject({ accept: "audio/*" });
      expect(seen.at(-1)!.headers.authorization).toBeUndefined();
      expect(seen.at(-1)!.headers["x-api-key"]).toBeUndefined();
    } finally {
      await guarded.close();
    }
  });

  it("stops after maxRedirects, and hands redirects over as they are when asked to", async () => {
    expect((await failure(fetchBytes(`${base}/loop`, { maxBytes: 1000, allowLoopback: true, maxRedirects: 2 }))).kind).toBe("too_many_redirects");
    const guarded = outboundFetch({ allowLoopback: true });
    try {
      expect((await guarded(`${base}/to-metadata`, { redirect: "manual" })).status).toBe(302);
    } finally {
      await guarded.close();
    }
  });

  it("refuses more than maxBytes, declared or streamed", async () => {
    expect(await failure(fetchBytes(`${base}/big`, { maxBytes: 1000, allowLoopback: true }))).toMatchObject({ kind: "too_large", message: expect.stringContaining("larger than 1000 bytes") });
    expect((await failure(fetchBytes(`${base}/chunked`, { maxBytes: 1000, allowLoopback: true }))).kind).toBe("too_large");
    const guarded = outboundFetch({ allowLoopback: true, maxBytes: 1000 });
    try {
      const response = await guarded(`${base}/chunked`);
      expect(outboundCause(await response.text().catch((e: unknown) => e))?.kind).toBe("too_large");
    } finally {
      await guarded.close();
    }
  });

  it("answers a server that does not answer in time as a timeout", async () => {
    expect((await failure(fetchBytes(`${base}/slow`, { maxBytes: 1000, allowLoopback: true, timeoutMs: 200 }))).kind).toBe("timeout");
  });

  it("answers a non-2xx status as http_status, and an unreachable server as unreachable", async () => {
    expect(await failure(fetchBytes(`${base}/missing`, { maxBytes: 1000, allowLoopback: true }))).toMatchObject({ kind: "http_status", status: 404 });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const gone = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect((await failure(fetchBytes(`http://127.0.0.1:${gone}/`, { maxBytes: 10, allowLoopback: true }))).kind).toBe("unreachable");
  });

  it.each(["file:///etc/passwd", "ftp://example.com/a", "not a url", "gopher://x"])("refuses %s as an invalid URL", async (url) => {
    expect((await failure(fetchBytes(url, { maxBytes: 10 }))).kind).toBe("invalid_url");
  });

  it("takes loopback's permission from OUTBOUND_ALLOW_LOOPBACK when not told, at every connection", async () => {
    const before = process.env[ALLOW_LOOPBACK_ENV];
    try {
      process.env[ALLOW_LOOPBACK_ENV] = "false";
      expect((await failure(fetchBytes(`${base}/audio`, { maxBytes: 1000 }))).kind).toBe("refused_address");
      process.env[ALLOW_LOOPBACK_ENV] = "true";
      expect((await fetchBytes(`${base}/audio`, { maxBytes: 1000 })).bytes.length).toBe(100);
    } finally {
      process.env[ALLOW_LOOPBACK_ENV] = before;
    }
  });
});
