/**
 * The local stack's own services, which outbound calls may never reach even where loopback is allowed
 * (docs/outbound.md "The stack's own ports"): DynamoDB Local and s3rver answer without checking credentials,
 * so a connector pointed at them would read every tenant's records and objects. `npm start` (and the tests'
 * stack) registers each backend's (host, port) in OUTBOUND_DENY_TARGETS as it starts them; the guard checks
 * the resolved address and port of every connection against it, beside its address rules.
 *
 * Kept apart from the guard's address classification (shared/net/outbound.ts) on purpose: this is a list of
 * services, not of ranges, and it applies in addition to whatever the classification allows.
 */
import { isIP } from "node:net";

export const DENY_TARGETS_ENV = "OUTBOUND_DENY_TARGETS";

export interface StackTarget {
  /** The address the service listens on (an IP literal; `0.0.0.0` or `::` for every interface). */
  host: string;
  port: number;
}

/** `host:port` entries, comma-separated; IPv6 hosts in brackets (`[::1]:8000`). */
export function formatTargets(targets: readonly StackTarget[]): string {
  return targets.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(",");
}

export function parseTargets(raw: string | undefined): StackTarget[] {
  if (!raw) return [];
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(entry);
      if (!match || !isIP(match[1]!)) throw new Error(`${DENY_TARGETS_ENV}: '${entry}' is not an IP address and port (host:port, [v6]:port)`);
      return { host: match[1]!, port: Number(match[2]) };
    });
}

/** The target an endpoint URL names (`http://127.0.0.1:8000` → 127.0.0.1, 8000). */
export function targetOf(endpoint: string): StackTarget {
  const url = new URL(endpoint);
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port };
}

/** IPv4 as is, IPv6 canonical, an IPv4-mapped IPv6 address (any spelling) as its IPv4 address. */
function normalized(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return undefined;
  const ip = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
  if (!mapped) return ip;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

const isLoopback = (ip: string) => ip === "::1" || /^127\./.test(ip);
const isWildcard = (ip: string) => ip === "0.0.0.0" || ip === "::";

/**
 * Whether a service listening on `listen` takes a connection to `address`: the same address, or any loopback
 * address when it listens on loopback or on every interface (127.0.0.2, `::1` and `::ffff:127.0.0.1` all
 * reach a server on 127.0.0.1 or 0.0.0.0 on Linux).
 */
function reaches(address: string, listen: string): boolean {
  if (address === listen) return true;
  return isLoopback(address) && (isLoopback(listen) || isWildcard(listen));
}

/** Why a connection to (address, port) is refused as one of the stack's own services, or undefined. */
export function stackTargetRefusal(address: string, port: number, targets: readonly StackTarget[] = parseTargets(process.env[DENY_TARGETS_ENV])): string | undefined {
  const ip = normalized(address);
  if (!ip) return undefined;
  for (const target of targets) {
    const listen = normalized(target.host);
    if (listen && target.port === port && reaches(ip, listen)) return `port ${port} there is one of this stack's own services`;
  }
  return undefined;
}

/** The port a URL-less connection goes to: the given one, or the scheme's default. */
export const portOf = (port: string | number | undefined | null, protocol: string): number => (port ? Number(port) : protocol === "https:" ? 443 : 80);
