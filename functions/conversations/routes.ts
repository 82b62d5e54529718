import { area } from "../route-row.js";

/**
 * Conversations (docs/conversations.md, decision 0070): reading them takes `agents:read`, deleting one `agents:write`,
 * running a turn (start, append, restart) `inference:invoke`, as an agent completion does. Turns are response-streaming
 * rows, as chat is: `stream: true` answers Mistral's conversation events. A turn's `document_library` tool reads the
 * libraries it names (the caller's level on each) and queries their vectors.
 */
const turn = {
  permission: "inference:invoke",
  grants: {
    tables: { conversations: "readwrite", agents: "read", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write", connectors: "readwrite", libraries: "read" },
    models: "invoke",
    telemetry: "write",
    secrets: true,
    vectors: "query",
  },
  streaming: true,
  memoryMb: 1024,
  extension: true,
} as const;

export const conversationRoutes = area({ permissions: { read: "agents:read", write: "agents:write" } }, [
  { method: "POST", path: "/v1/conversations", handler: "conversations/start", ...turn },
  { method: "GET", path: "/v1/conversations", handler: "conversations/list", grants: { tables: { conversations: "read" } }, extension: true },
  { method: "GET", path: "/v1/conversations/{conversation_id}", handler: "conversations/retrieve", grants: { tables: { conversations: "read" } }, extension: true },
  { method: "POST", path: "/v1/conversations/{conversation_id}", handler: "conversations/append", ...turn },
  { method: "DELETE", path: "/v1/conversations/{conversation_id}", handler: "conversations/delete", doc: { status: 204 }, grants: { tables: { conversations: "readwrite" } }, extension: true },
  { method: "GET", path: "/v1/conversations/{conversation_id}/history", handler: "conversations/history", grants: { tables: { conversations: "read" } }, extension: true },
  { method: "GET", path: "/v1/conversations/{conversation_id}/messages", handler: "conversations/messages", grants: { tables: { conversations: "read" } }, extension: true },
  { method: "POST", path: "/v1/conversations/{conversation_id}/restart", handler: "conversations/restart", ...turn },
]);
