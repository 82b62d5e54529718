/**
 * Listing and calling a connector's tools on its real server (shared/net/tools.ts), with the connector's
 * headers and the credentials that apply to the caller (refreshed when OAuth tokens expired).
 */
import type { Caller } from "../../domain/caller.js";
import type { ConnectorRecord, StoredCredentials } from "../../domain/connectors/records.js";
import { callTool as callOnServer, listTools as listOnServer, type ToolDescription, type ToolServer } from "../../net/tools.js";
import { found, secretsOf } from "./connectors.js";
import { credentialsFor } from "./credentials.js";
import { fresh } from "./oauth.js";

function headersFrom(secret: StoredCredentials | undefined): Record<string, string> {
  if (!secret) return {};
  if (secret.oauth) return { authorization: `Bearer ${secret.oauth.accessToken}` };
  return { ...(secret.headers ?? {}), ...(secret.bearerToken ? { authorization: `Bearer ${secret.bearerToken}` } : {}) };
}

/** The server as the caller reaches it: the connector's headers, then the caller's credentials. */
export async function serverFor(connector: ConnectorRecord, caller: Pick<Caller, "organization" | "workspace" | "principal">, credentialsName?: string): Promise<ToolServer> {
  const { headers } = await secretsOf(connector);
  const credentials = await credentialsFor(connector, caller as Caller, credentialsName);
  const secret = credentials && (await fresh(connector, credentials.record, credentials.secret));
  return { protocol: connector.protocol, server: connector.server, headers: { ...headers, ...headersFrom(secret) } };
}

export async function listTools(caller: Caller, ref: string, query: { page: number; page_size: number; credentials_name?: string }, signal?: AbortSignal): Promise<ToolDescription[]> {
  const connector = await found(caller, ref);
  const tools = await listOnServer(await serverFor(connector, caller, query.credentials_name), { signal });
  return tools.slice((query.page - 1) * query.page_size, query.page * query.page_size);
}

/** The tool's result as the API answers it: content, and the MCP-specific fields under `metadata.mcp_meta`. */
export async function callTool(caller: Pick<Caller, "organization" | "workspace" | "principal">, ref: string | ConnectorRecord, tool: string, args: Record<string, unknown>, options: { credentialsName?: string; signal?: AbortSignal } = {}) {
  const connector = typeof ref === "string" ? await found(caller as Caller, ref) : ref;
  const result = await callOnServer(await serverFor(connector, caller, options.credentialsName), tool, args, { signal: options.signal });
  return {
    content: result.content,
    metadata: connector.protocol === "mcp" ? { mcp_meta: { isError: result.isError, structuredContent: result.structuredContent ?? null, _meta: result.meta ?? null } } : { mcp_meta: null, structured_content: result.structuredContent ?? null },
  };
}
