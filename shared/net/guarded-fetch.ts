/**
 * Outbound HTTP(S) fetches of URLs a client named (e.g. `file_url` of a transcription), under the SSRF rules:
 *
 * - only `http:` and `https:`;
 * - the host's addresses are checked **after DNS resolution**, on every hop of a redirect, and the socket
 *   connects to the address that was checked (the check runs inside the connection's own `lookup`, so a
 *   name that resolves differently a second time cannot slip past it);
 * - refused: loopback, private (RFC 1918, unique-local), link-local (which holds the instance metadata
 *   service, 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast, reserved, documentation and
 *   "this network" ranges, in IPv4, IPv6 and IPv4-mapped IPv6 forms;
 * - loopback alone may be allowed, for `npm start` and the tests (`OUTBOUND_ALLOW_LOOPBACK=true`, set by
 *   infra/local/env.ts; never in a deployment);
 * - redirects are followed by hand (at most `maxRedirects`), the body is cut at `maxBytes`, and the whole
 *   exchange at `timeoutMs`.
 *
 * Failures are `OutboundError`s whose `kind` says what went wrong; the caller maps them to its answers.
 */
import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

export const ALLOW_LOOPBACK_ENV = "OUTBOUND_ALLOW_LOOPBACK";

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

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface GuardedFetchOptions {
  maxBytes: number;
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Defaults to the OUTBOUND_ALLOW_LOOPBACK setting. */
  allowLoopback?: boolean;
  /** Resolves a host name to all its addresses (tests inject one; the default is the system resolver). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface Fetched {
  bytes: Buffer;
  contentType: string | null;
  /** The URL the bytes came from, after redirects. */
  url: string;
}

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["169.254.0.0", 16], // link-local: instance metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["64:ff9b::", 96], // NAT64: may reach any IPv4 address
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique-local, incl. the metadata service's fd00:ec2::254
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** `::ffff:a.b.c.d` (and its hex form) is the IPv4 address a.b.c.d. */
function unmapped(address: string): { address: string; type: "ipv4" | "ipv6" } {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, "");
  const dotted = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return { address: dotted[1]!, type: "ipv4" };
  const hex = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return { address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, type: "ipv4" };
  }
  return { address: lower, type: isIP(lower) === 4 ? "ipv4" : "ipv6" };
}

/** Why an address may not be reached, or undefined when it may. */
export function refusalOf(address: string, allowLoopback: boolean): string | undefined {
  const { address: ip, type } = unmapped(address);
  if (!isIP(ip)) return "it is not an IP address";
  if (LOOPBACK.check(ip, type)) return allowLoopback ? undefined : "it is a loopback address";
  if (BLOCKED.check(ip, type)) return "it is a private, link-local, metadata or reserved address";
  return undefined;
}

const loopbackAllowedBySetting = () => process.env[ALLOW_LOOPBACK_ENV] === "true";

const systemResolve = (hostname: string): Promise<ResolvedAddress[]> =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** The connection's lookup: resolves, refuses if any address is refused, and hands the socket only checked addresses. */
function checkedLookup(resolveHost: (hostname: string) => Promise<ResolvedAddress[]>, allowLoopback: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolveHost(hostname).then(
      (addresses) => {
        if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }));
        for (const { address } of addresses) {
          const why = refusalOf(address, allowLoopback);
          if (why) {
            return callback(new OutboundError("refused_address", `The host ${hostname} resolves to ${address}, which may not be fetched: ${why}`));
          }
        }
        if (options?.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error),
    );
  }) as LookupFunction;
}

function parsed(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError("invalid_url", "The URL is not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundError("invalid_url", `The URL's scheme ${url.protocol} is not http or https`);
  return url;
}

/** Fetches `raw` with GET under the rules above; answers the body (at most `maxBytes`) of the final 2xx response. */
export async function guardedFetch(raw: string, options: GuardedFetchOptions): Promise<Fetched> {
  const allowLoopback = options.allowLoopback ?? loopbackAllowedBySetting();
  const resolveHost = options.resolve ?? systemResolve;
  const maxRedirects = options.maxRedirects ?? 3;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = parsed(raw);
  for (let hop = 0; ; hop += 1) {
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal)) {
      const why = refusalOf(literal, allowLoopback);
      if (why) throw new OutboundError("refused_address", `${literal} may not be fetched: ${why}`);
    }
    const response = await get(url, signal, checkedLookup(resolveHost, allowLoopback), deadline);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= maxRedirects) throw new OutboundError("too_many_redirects", `More than ${maxRedirects} redirects`);
      url = parsed(new URL(response.headers.location, url).toString());
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw new OutboundError("http_status", `The URL answered HTTP ${status}`, status);
    }
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      response.destroy();
      throw new OutboundError("too_large", `The URL's content is ${declared} bytes, more than ${options.maxBytes}`);
    }
    const bytes = await body(response, options.maxBytes, deadline);
    return { bytes, contentType: response.headers["content-type"] ?? null, url: url.toString() };
  }
}

function get(url: URL, signal: AbortSignal, lookup: LookupFunction, deadline: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    // No agent: each hop opens its own connection, through the checked lookup (a pooled socket could outlive the check).
    const request = send(url, { method: "GET", lookup, signal, agent: false, headers: { accept: "*/*", "user-agent": "platform-api-fetch" } });
    request.on("response", resolve);
    request.on("error", (error: Error) => {
      if (error instanceof OutboundError) return reject(error);
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof OutboundError) return reject(cause);
      if (deadline.aborted) return reject(new OutboundError("timeout", "The URL did not answer in time"));
      if (signal.aborted) return reject(signal.reason);
      const code = (error as { code?: string }).code;
      reject(new OutboundError("unreachable", `The URL could not be reached${code ? ` (${code})` : ""}`));
    });
    request.end();
  });
}

async function body(response: IncomingMessage, maxBytes: number, deadline: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) {
        response.destroy();
        throw new OutboundError("too_large", `The URL's content is more than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (deadline.aborted) throw new OutboundError("timeout", "The URL did not answer in time");
    throw new OutboundError("unreachable", "The connection broke off mid-response");
  }
  return Buffer.concat(chunks);
}
