/**
 * The outbound guard (SSRF): every HTTP request the platform makes to an address a client named goes
 * through here — a transcription's `file_url` (audio), a connector's MCP or HTTP tool server, OAuth
 * discovery, token and refresh endpoints (connectors). The rules (docs/outbound.md, decision 31):
 *
 * - only `http:` and `https:`;
 * - allowed: global unicast only (an allow-list, so a range nobody listed is refused): IPv4 outside every
 *   IANA special-purpose block (private, carrier-grade NAT, link-local with the instance metadata service
 *   169.254.169.254 and 169.254.170.2, documentation, benchmarking, ...), multicast and reserved space; IPv6
 *   inside 2000::/3 and outside its special-purpose blocks (so unique-local with fd00:ec2::254, link-local,
 *   site-local, multicast, IPv4-compatible, discard are refused). IPv4-mapped and IPv4-translated IPv6
 *   addresses (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, any spelling) are judged as their IPv4 address; NAT64,
 *   6to4 and Teredo are refused whatever they embed (they reach IPv4 through a relay);
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

/**
 * IPv4 addresses that are not global unicast: every block of IANA's IPv4 Special-Purpose Address Registry
 * (RFC 6890 and its updates), multicast and the reserved 240/4. Everything else is the public internet.
 */
const IPV4_SPECIAL = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback (allowed apart, below)
  ["169.254.0.0", 16], // link-local: EC2 and ECS metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.31.196.0", 24], // AS112-v4
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["192.175.48.0", 24], // direct delegation AS112
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  IPV4_SPECIAL.addSubnet(network, prefix, "ipv4");
}

/**
 * Special-purpose blocks inside IPv6's global unicast space 2000::/3 (IANA's IPv6 Special-Purpose Address
 * Registry); outside 2000::/3 nothing is global unicast (loopback, unspecified, IPv4-compatible, mapped and
 * translated, NAT64, discard, unique-local with the metadata service's fd00:ec2::254, link-local,
 * site-local, multicast), so it needs no list.
 */
const IPV6_SPECIAL = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, drone ids
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["2620:4f:8000::", 48], // direct delegation AS112
  ["3fff::", 20], // documentation (RFC 9637)
] as const) {
  IPV6_SPECIAL.addSubnet(network, prefix, "ipv6");
}

/** What an address is, for the guard: public, loopback, or anything else (private, reserved, special). */
type AddressClass = { kind: "global" | "loopback" | "special" };

const REFUSED_ADDRESS = "it is a private, link-local, metadata or reserved address";

/** The 16 bytes of an IPv6 address in WHATWG's canonical spelling (hex groups, one `::` at most). */
function ipv6Bytes(canonicalIp: string): Uint8Array {
  const [head, tail] = canonicalIp.includes("::") ? canonicalIp.split("::") : [canonicalIp, undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 255;
  });
  return bytes;
}

const dotted = (b: ArrayLike<number>, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

function classifyIpv4(ip: string): AddressClass {
  if (ip.startsWith("127.")) return { kind: "loopback" };
  return { kind: IPV4_SPECIAL.check(ip, "ipv4") ? "special" : "global" };
}

/**
 * IPv6: global unicast is 2000::/3 without its special-purpose blocks. An address that embeds an IPv4
 * address is judged by it: IPv4-mapped (`::ffff:a.b.c.d`, which a dual-stack socket connects to as IPv4)
 * and IPv4-translated (`::ffff:0:a.b.c.d`, RFC 2765) as that IPv4 address. NAT64 (64:ff9b::/96,
 * 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32) hand the packet to a translator or relay that the
 * platform does not control, so they are refused whatever they embed (decision 0049).
 */
function classifyIpv6(ip: string): AddressClass {
  if (ip === "::1") return { kind: "loopback" };
  const bytes = ipv6Bytes(ip);
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(dotted(bytes, 12));
  // Translated (SIIT) addresses are not this host's loopback: only a global IPv4 address passes.
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return { kind: classifyIpv4(dotted(bytes, 12)).kind === "global" ? "global" : "special" };
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) || startsWith(bytes, [0x20, 0x02]) || startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) return { kind: "special" };
  if ((bytes[0]! & 0xe0) !== 0x20) return { kind: "special" };
  return { kind: IPV6_SPECIAL.check(ip, "ipv6") ? "special" : "global" };
}

/** The address classified, or undefined when it is not an IP address (any IPv6 spelling: zones, brackets, dotted tails). */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return classifyIpv4(bare);
  if (family !== 6) return undefined;
  return classifyIpv6(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
}

/** Why an address may not be reached, or undefined when it may: only global unicast, and loopback where allowed. */
export function refusalOf(address: string, allowLoopback: boolean = loopbackAllowed()): string | undefined {
  const parsed = classifyAddress(address);
  if (!parsed) return "it is not an IP address";
  if (parsed.kind === "loopback") return allowLoopback ? undefined : "it is a loopback address";
  if (parsed.kind === "special") return REFUSED_ADDRESS;
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
