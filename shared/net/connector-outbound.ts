/**
 * The connectors' outbound guard (SSRF): every request a connector makes (tool servers, OAuth discovery
 * and token endpoints) goes through `outboundFetch`, which refuses to connect to loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, multicast and reserved addresses. The check runs on the
 * address the socket is about to connect to, after DNS resolution, for the first request and for every
 * redirect (each is a new connection through the same connector), so neither a hostname that resolves to
 * 169.254.169.254 nor a redirect to http://10.0.0.1 gets through. IP literals are checked the same way.
 *
 * `OUTBOUND_ALLOW_LOOPBACK=true` lets loopback through (127.0.0.0/8, ::1) and nothing else: `npm start`
 * and the tests set it so connectors can reach servers on this machine; CDK never sets it, and it is
 * ignored inside AWS Lambda. (The audio area may guard `file_url` fetches with a module of its own;
 * this one is named for connectors: decision 31.)
 */
import { BlockList, isIP } from "node:net";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";

export const ALLOW_LOOPBACK_ENV = "OUTBOUND_ALLOW_LOOPBACK";

/** Whether loopback may be reached: only where the setting says so, and never in a deployed function. */
export const loopbackAllowed = (): boolean => process.env[ALLOW_LOOPBACK_ENV] === "true" && !process.env.AWS_LAMBDA_FUNCTION_NAME;

const refused = new BlockList();
// IPv4: "this network", private, carrier-grade NAT, link-local (EC2/ECS metadata), IETF protocol
// assignments, documentation and benchmarking ranges, multicast, reserved, broadcast.
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  refused.addSubnet(net, prefix, "ipv4");
}
// IPv6: unspecified, unique local (incl. AWS's fd00:ec2::254 metadata), link-local, multicast, documentation, site-local.
for (const [net, prefix] of [
  ["::", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
] as const) {
  refused.addSubnet(net, prefix, "ipv6");
}
const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, compatible `::a.b.c.d`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/** Why an address may not be reached, or undefined if it may. */
export function refusalFor(address: string, allowLoopback = loopbackAllowed()): string | undefined {
  const family = isIP(address);
  if (!family) return `'${address}' is not an IP address`;
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  if (v4 !== undefined && v4 !== address) return refusalFor(v4, allowLoopback);
  const type = family === 4 ? "ipv4" : "ipv6";
  if (loopback.check(address, type)) return allowLoopback ? undefined : `${address} is a loopback address`;
  if (refused.check(address, type)) return `${address} is a private, link-local or reserved address`;
  return undefined;
}

/** A connection the guard refused: the tool call answers 502 with this message; nothing was sent. */
export class OutboundRefused extends Error {
  readonly code = "OUTBOUND_REFUSED";
  constructor(host: string, why: string) {
    super(`Refused to connect to ${host}: ${why}`);
    this.name = "OutboundRefused";
  }
}

export type Resolver = (hostname: string, options: { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * A `lookup` for net/tls.connect that resolves with `resolver` and answers only addresses the guard
 * allows. Every address the name resolves to must be allowed: a name that also points inward is refused.
 */
export function guardedLookup(resolver: Resolver = systemResolver, allowLoopback?: () => boolean) {
  return (hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    resolver(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      if (!addresses.length) return callback(new OutboundRefused(hostname, "it resolves to no address"), "", 0);
      for (const { address } of addresses) {
        const why = refusalFor(address, allowLoopback ? allowLoopback() : loopbackAllowed());
        if (why) return callback(new OutboundRefused(hostname, why), "", 0);
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export interface OutboundOptions {
  /** DNS resolution (tests stub it to check refusals without any traffic). */
  resolver?: Resolver;
  /** Connect timeout, ms. */
  connectTimeoutMs?: number;
  /** Largest response body read, bytes: past it the body errors with `ResponseTooLarge`. */
  maxResponseBytes?: number;
  /** Redirects followed at most (each one re-checked). */
  maxRedirections?: number;
}

export class ResponseTooLarge extends Error {
  readonly code = "RESPONSE_TOO_LARGE";
  constructor(limit: number) {
    super(`The server's response is larger than ${limit} bytes`);
    this.name = "ResponseTooLarge";
  }
}

/** A fetch (the WHATWG signature) that only reaches addresses the guard allows, with a cap on response bodies. */
export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function outboundFetch(options: OutboundOptions = {}): OutboundFetch {
  const lookup = guardedLookup(options.resolver);
  const base = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, lookup } as Parameters<typeof buildConnector>[0]);
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host)) {
      const why = refusalFor(host);
      if (why) return callback(new OutboundRefused(host, why), null);
    }
    return base(opts, callback);
  };
  const dispatcher = new Agent({ connect });
  const maxBytes = options.maxResponseBytes;
  const maxRedirections = options.maxRedirections ?? 5;
  return async (input, init = {}) => {
    let url = typeof input === "string" || input instanceof URL ? new URL(input.toString()) : new URL(input.url);
    let request = { ...init };
    // Redirects are followed here, not by fetch, so that each target's scheme is checked too.
    for (let hop = 0; ; hop += 1) {
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundRefused(url.host, `the scheme ${url.protocol} is not allowed`);
      const response = (await undiciFetch(url, { ...(request as object), redirect: "manual", dispatcher } as never)) as unknown as Response;
      const location = response.headers.get("location");
      // A caller that handles redirects itself (the MCP transport's same-origin policy) gets them as they are.
      if (init.redirect === "manual") return maxBytes === undefined ? response : capped(response, maxBytes);
      if (init.redirect === "error" && response.status >= 300 && response.status < 400) throw new OutboundRefused(url.host, "the server redirected a request that may not be redirected");
      if (response.status >= 300 && response.status < 400 && location) {
        if (hop >= maxRedirections) throw new OutboundRefused(url.host, `more than ${maxRedirections} redirects`);
        await response.body?.cancel();
        url = new URL(location, url);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && (request.method ?? "GET") === "POST")) {
          request = { ...request, method: "GET", body: undefined };
        }
        continue;
      }
      return maxBytes === undefined ? response : capped(response, maxBytes);
    }
  };
}

/** The response with a body that errors once more than `limit` bytes came. */
function capped(response: Response, limit: number): Response {
  if (!response.body) return response;
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > limit) {
    void response.body.cancel();
    throw new ResponseTooLarge(limit);
  }
  let seen = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new ResponseTooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
