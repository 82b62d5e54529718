/**
 * The outbound guard's settings under the local stack (docs/outbound.md): loopback targets are allowed by
 * default (a local MCP server, a test's audio server) unless the operator said otherwise, and the stack's own
 * services are refused by (address, port) whatever that setting (shared/net/stack-targets.ts).
 */
import { isIP } from "node:net";
import { ALLOW_LOOPBACK_ENV } from "../../shared/net/outbound.js";
import { DENY_TARGETS_ENV, formatTargets, parseTargets, targetOf, type StackTarget } from "../../shared/net/stack-targets.js";

/** The environment handed to the stack's handlers: the operator's loopback setting (default true) and the stack's services. */
export function outboundEnv(operator: NodeJS.ProcessEnv, endpoints: readonly string[]): Record<string, string> {
  return {
    [ALLOW_LOOPBACK_ENV]: operator[ALLOW_LOOPBACK_ENV] ?? "true",
    [DENY_TARGETS_ENV]: formatTargets(endpoints.map(targetOf)),
  };
}

/** The deny-list with one more service: the API server itself, once it listens (a name such as `localhost` stands for both loopbacks). */
export function withServer(denied: string | undefined, host: string, port: number): string {
  const hosts = isIP(host.replace(/^\[|\]$/g, "")) ? [host.replace(/^\[|\]$/g, "")] : ["127.0.0.1", "::1"];
  const targets: StackTarget[] = [...parseTargets(denied), ...hosts.map((h) => ({ host: h, port }))];
  return formatTargets(targets);
}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;

/**
 * Said at start when the API listens beyond this machine while outbound calls may reach loopback: anyone who
 * reaches the API may then make it call services that listen only on this machine's loopback.
 */
export function loopbackWarning(host: string, env: NodeJS.ProcessEnv): string | undefined {
  if (LOOPBACK_HOST.test(host) || env[ALLOW_LOOPBACK_ENV] !== "true") return undefined;
  return `WARNING: HOST=${host} serves the API beyond this machine while connectors and file_url may reach its loopback services (${ALLOW_LOOPBACK_ENV}=true). The stack's own backends stay refused; set ${ALLOW_LOOPBACK_ENV}=false unless every client is trusted.`;
}
