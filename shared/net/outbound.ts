/**
 * The outbound guard (SSRF): every HTTP request the platform makes to an address a client named goes
 * through here — a transcription's `file_url` (audio), a connector's MCP or HTTP tool server, OAuth
 * discovery, token and refresh endpoints (connectors). The rules (docs/outbound.md, decision 31):
 *
 * - only `http:` and `https:`;
 * - refused: loopback, "this network" (0.0.0.0/8, `::`), private (RFC 1918), carrier-grade NAT, link-local
 *   (the instance metadata service: 169.254.169.254, 169.254.170.2, fd00:ec2::254), IETF, documentation and
 *   benchmarking ranges, multicast, reserved and broadcast; in IPv6 unique-local, link-local, site-local,
 *   multicast, documentation, discard, IPv4-compatible, NAT64, 6to4 and Teredo (the last ones can reach any
 *   IPv4 address); an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, any spelling) is judged as its IPv4 address;
 * - the check runs **after DNS resolution**, on **every** address the name resolves to, inside the
 *   connection's own `lookup` (an undici `Agent` whose connector resolves through the guard), so the socket
 *   connects to an address that was checked: a name that answers differently a second time (DNS rebinding)
 *   cannot slip past it. IP literals, which skip the lookup, are checked in the connector;
 * - redirects are followed here, not by fetch (at most `maxRedirects`), each hop a new checked connection;
 *   a redirect to another origin drops the caller's headers (credentials are never sent to a second origin);
 * - loopback alone may be allowed, by `OUTBOUND_ALLOW_LOOPBACK=true`: set by infra/local (`npm start`, tests)
 *   unless the operator set it otherwise, never by CDK, and ignored inside AWS Lambda; even then the local
 *   stack's own services (shared/net/stack-targets.ts) are refused by (address, port);
 * - timeouts (`connectTimeoutMs`, `timeoutMs` for the whole exchange) and a body cap (`maxBytes`) are options.
 *
 * Failures are `OutboundError`s whose `kind` says what went wrong; callers map them to their answers (audio:
 * 422 or 413, connectors: 502 or 504).
 */
import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { portOf, stackTargetRefusal } from "./stack-targets.js";

export const ALLOW_LOOPBACK_ENV = "OUTBOUND_ALLOW_LOOPBACK";

/** Whether loopback may be reached: only where the setting says so, and never in a deployed function. */
export const loopbackAllowed = (): boolean => process.env[ALLOW_LOOPBACK_ENV] === "true" && !process.env.AWS_LAMBDA_FUNCTION_NAME;

export type OutboundFailure = "invalid_url" | "refused_address" | "too_large" | "timeout" | "unreachable" | "http_status" | "too_many_redirects";

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
    /** The upstream status, for `http_status`. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["169.254.0.0", 16], // link-local: EC2 and ECS metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  REFUSED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified and IPv4-compatible (::1 is judged as loopback first)
  ["64:ff9b::", 96], // NAT64: may reach any IPv4 address
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard
  ["2001::", 32], // Teredo
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["fc00::", 7], // unique-local, incl. the metadata service's fd00:ec2::254
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local
  ["ff00::", 8], // multicast
] as const) {
  REFUSED.addSubnet(network, prefix, "ipv6");
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** The address in one spelling: IPv4 as is; IPv6 canonical (WHATWG), an IPv4-mapped one as its IPv4 address. */
function canonical(address: string): { ip: string; type: "ipv4" | "ipv6" } | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return { ip: bare, type: "ipv4" };
  if (family !== 6) return undefined;
  const ip = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
  if (!mapped) return { ip, type: "ipv6" };
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return { ip: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, type: "ipv4" };
}

/** Why an address may not be reached, or undefined when it may. */
export function refusalOf(address: string, allowLoopback: boolean = loopbackAllowed()): string | undefined {
  const parsed = canonical(address);
  if (!parsed) return "it is not an IP address";
  if (LOOPBACK.check(parsed.ip, parsed.type)) return allowLoopback ? undefined : "it is a loopback address";
  if (REFUSED.check(parsed.ip, parsed.type)) return "it is a private, link-local, metadata or reserved address";
  return undefined;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses (tests inject one; the default is the system resolver). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

type LookupCallback = (error: Error | null, address: string | ResolvedAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect: resolves with `resolve`, refuses when **any** answer is refused, and hands
 * the socket only the addresses it checked.
 */
export function guardedLookup(resolve: Resolve = systemResolve, allowLoopback: () => boolean = loopbackAllowed, port?: number) {
  return (hostname: string, options: { all?: boolean } | undefined, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
        for (const { address } of addresses) {
          const why = refusalOf(address, allowLoopback()) ?? (port === undefined ? undefined : stackTargetRefusal(address, port));
          if (why) return callback(new OutboundError("refused_address", `The host ${hostname} resolves to ${address}, which may not be fetched: ${why}`), "", 0);
        }
        if (options?.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: Error) => callback(error, "", 0),
    );
  };
}

export interface OutboundOptions {
  /** Defaults to the OUTBOUND_ALLOW_LOOPBACK setting, read at every connection. */
  allowLoopback?: boolean;
  resolve?: Resolve;
  /** Connecting (TCP and TLS), ms; 10 s unless told. */
  connectTimeoutMs?: number;
  /** The whole exchange, redirects and body included, ms; none unless told (the caller's signal still applies). */
  timeoutMs?: number;
  /** Largest response body, bytes: past it the body errors with an `OutboundError` "too_large". */
  maxBytes?: number;
  /** Redirects followed at most (each one re-checked); 5 unless told. */
  maxRedirects?: number;
}

/** A fetch (the WHATWG signature) that only reaches addresses the guard allows. `close` ends its connections. */
export type OutboundFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & { close(): Promise<void> };

/** Headers that may follow a redirect to another origin; the rest (credentials, API keys) stay behind. */
const CROSS_ORIGIN_HEADERS = new Set(["accept", "accept-language", "content-type", "user-agent"]);

function parsedUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(raw.toString());
  } catch {
    throw new OutboundError("invalid_url", "The URL is not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundError("invalid_url", `The URL's scheme ${url.protocol} is not http or https`);
  return url;
}

export function outboundFetch(options: OutboundOptions = {}): OutboundFetch {
  const allowLoopback = () => options.allowLoopback ?? loopbackAllowed();
  // One connector per port: the lookup also checks (address, port) against the stack's own services.
  const connectors = new Map<number, buildConnector.connector>();
  const connectorFor = (port: number) => {
    if (!connectors.has(port)) {
      const lookup = guardedLookup(options.resolve, allowLoopback, port);
      connectors.set(port, buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, lookup } as Parameters<typeof buildConnector>[0]));
    }
    return connectors.get(port)!;
  };
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    const port = portOf(opts.port, opts.protocol);
    if (isIP(host)) {
      const why = refusalOf(host, allowLoopback()) ?? stackTargetRefusal(host, port);
      if (why) return callback(new OutboundError("refused_address", `${host} may not be fetched: ${why}`), null);
    }
    return connectorFor(port)(opts, callback);
  };
  const dispatcher = new Agent({ connect });
  const maxRedirects = options.maxRedirects ?? 5;

  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const fromRequest = typeof input === "string" || input instanceof URL ? {} : { method: input.method, headers: input.headers, body: input.body, signal: input.signal };
    let request: RequestInit = { ...fromRequest, ...init };
    let url = parsedUrl(typeof input === "string" || input instanceof URL ? input : input.url);
    const deadline = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
    const signal = deadline && request.signal ? AbortSignal.any([deadline, request.signal]) : (deadline ?? request.signal ?? undefined);
    for (let hop = 0; ; hop += 1) {
      let response: Response;
      try {
        response = (await undiciFetch(url, { ...(request as object), signal, redirect: "manual", dispatcher } as never)) as unknown as Response;
      } catch (error) {
        // fetch wraps a refused connection in "fetch failed": answer the refusal itself.
        const cause = (error as { cause?: unknown }).cause;
        throw cause instanceof OutboundError ? cause : error;
      }
      const redirected = response.status >= 300 && response.status < 400;
      // A caller that handles redirects itself (the MCP transport's same-origin policy) gets them as they are.
      if (init.redirect === "manual" || !redirected) return at(capped(response, options.maxBytes), url);
      if (init.redirect === "error") throw new OutboundError("too_many_redirects", `${url.host} redirected a request that may not be redirected`);
      const location = response.headers.get("location");
      if (!location) return at(capped(response, options.maxBytes), url);
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new OutboundError("too_many_redirects", `More than ${maxRedirects} redirects`);
      const next = parsedUrl(new URL(location, url));
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && (request.method ?? "GET").toUpperCase() === "POST")) {
        request = { ...request, method: "GET", body: undefined };
      }
      if (next.origin !== url.origin) {
        const kept: [string, string][] = [];
        new Headers(request.headers).forEach((value, name) => {
          if (CROSS_ORIGIN_HEADERS.has(name) && (name !== "content-type" || request.body !== undefined)) kept.push([name, value]);
        });
        request = { ...request, headers: kept };
      }
      url = next;
    }
  };
  return Object.assign(guarded, { close: () => dispatcher.close() });
}

/** The response, saying the URL it came from after redirects (a rebuilt Response has none). */
function at(response: Response, url: URL): Response {
  if (!response.url) Object.defineProperty(response, "url", { value: url.toString() });
  return response;
}

/** The response with a body that errors once more than `limit` bytes came (or at once, if it declares more). */
function capped(response: Response, limit: number | undefined): Response {
  if (limit === undefined || !response.body) return response;
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > limit) {
    void response.body.cancel();
    throw new OutboundError("too_large", `The response is larger than ${limit} bytes (${declared} declared)`);
  }
  let seen = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new OutboundError("too_large", `The response is larger than ${limit} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export interface Fetched {
  bytes: Buffer;
  contentType: string | null;
  /** The URL the bytes came from, after redirects. */
  url: string;
}

/**
 * GETs `url` under the rules and answers the body of the final 2xx response, at most `maxBytes`; every
 * failure is an `OutboundError` (a non-2xx answer is "http_status" with the status).
 */
export async function fetchBytes(url: string, options: OutboundOptions & { maxBytes: number; signal?: AbortSignal }): Promise<Fetched> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const guarded = outboundFetch({ ...options, maxRedirects: options.maxRedirects ?? 3, timeoutMs: undefined });
  try {
    const response = await guarded(url, { headers: { accept: "*/*", "user-agent": "platform-api-fetch" }, signal });
    if (!response.ok) {
      await response.body?.cancel();
      throw new OutboundError("http_status", `The URL answered HTTP ${response.status}`, response.status);
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    return { bytes, contentType: response.headers.get("content-type"), url: response.url || url };
  } catch (error) {
    const found = outboundCause(error);
    if (found) throw found;
    if (deadline.aborted) throw new OutboundError("timeout", "The URL did not answer in time");
    if (options.signal?.aborted) throw options.signal.reason;
    const code = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    throw new OutboundError("unreachable", `The URL could not be reached${code ? ` (${code})` : ""}`);
  } finally {
    void guarded.close().catch(() => undefined);
  }
}

/** The guard's error somewhere down a cause chain (fetch and the MCP transport wrap them), if any. */
export function outboundCause(error: unknown): OutboundError | undefined {
  for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth += 1) {
    if (e instanceof OutboundError) return e;
  }
  return undefined;
}
