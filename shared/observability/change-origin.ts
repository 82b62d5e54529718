import { AsyncLocalStorage } from "node:async_hooks";
import { userInfo } from "node:os";

/**
 * Who is making changes in this asynchronous context and from where, for the audit log
 * (shared/services/audit/record.ts). The route chain sets it for each request once the caller is known; the
 * admin CLIs set it for their run. Ambient rather than a parameter: the same service operations serve both,
 * and the CLIs call them without a caller. Structurally the audit log's actor and origin (shared/domain/audit.ts).
 */
export interface ChangeOrigin {
  actor: { kind: "user" | "service_account" | "cli" | "system"; id: string; keyId?: string };
  origin: { via: "api" | "cli" | "system"; requestId?: string; address?: string; forwardedBy?: string };
}

const current = new AsyncLocalStorage<ChangeOrigin>();

export const withChangeOrigin = <T>(origin: ChangeOrigin, fn: () => T): T => current.run(origin, fn);

/** Changes made outside any request or CLI run (start-up provisioning, tests calling services) are the platform's. */
export const SYSTEM_ORIGIN: ChangeOrigin = { actor: { kind: "system", id: "platform" }, origin: { via: "system" } };

export const changeOrigin = (): ChangeOrigin => current.getStore() ?? SYSTEM_ORIGIN;

/** The operator at an admin CLI: the OS user, no request. */
export function cliOrigin(): ChangeOrigin {
  let user = process.env.USER ?? process.env.USERNAME ?? "";
  try {
    user = userInfo().username || user;
  } catch {
    // No passwd entry (some containers): the environment's name, or unknown.
  }
  return { actor: { kind: "cli", id: user || "unknown" }, origin: { via: "cli" } };
}

/** From here on, in this process, changes are the CLI operator's (the CLIs are one run each). */
export const enterCli = (): void => current.enterWith(cliOrigin());
