import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface Listener {
  pid: number;
  address: string;
  port: number;
}

/** An address of /proc/net/tcp (little-endian hex IPv4) or tcp6 (four little-endian 32-bit words) as text. */
function addressOf(hex: string): string {
  if (hex.length === 8) return hex.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join(".");
  const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(""));
  const groups = words.join("").match(/.{4}/g)!.map((g) => parseInt(g, 16).toString(16));
  // ::ffff:a.b.c.d (an IPv4 address on an IPv6 socket, as Java binds 127.0.0.1) reads as the IPv4 address.
  if (groups.slice(0, 5).every((g) => g === "0") && groups[5] === "ffff") {
    const v4 = words[3]!;
    return v4.match(/../g)!.map((b) => parseInt(b, 16)).join(".");
  }
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

/**
 * The TCP sockets in LISTEN state that the given processes hold, from /proc (what `ss -ltnp` reads):
 * the inodes of their socket descriptors matched with /proc/net/tcp and tcp6. Linux only.
 */
export function listenersOf(pids: number[]): Listener[] {
  const owners = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) owners.set(inode, pid);
      } catch {
        // Closed while we looked.
      }
    }
  }
  const out: Listener[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").trim().split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1]!, fields[3]!, fields[9]!];
      if (state !== "0A" || !owners.has(inode)) continue;
      const [hex, port] = local.split(":") as [string, string];
      out.push({ pid: owners.get(inode)!, address: addressOf(hex), port: parseInt(port, 16) });
    }
  }
  return out;
}

export const isLoopback = (address: string) => /^127\./.test(address) || address === "::1";

export const canReadSockets = () => existsSync("/proc/net/tcp");
