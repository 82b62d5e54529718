import { area } from "../route-row.js";

/**
 * Realtime transcription's REST side (docs/audio.md "Realtime"): minting client secrets. The socket itself is the
 * streaming service's (functions/upload-service/realtime.ts); no Lambda can hold it. Minting reads the catalog (the
 * model must serve realtime) and the URL signing secret in the tenancy table, and writes only the audit event.
 */
export const realtimeRoutes = area({ permissions: { read: "inference:invoke", write: "inference:invoke" } }, [
  { method: "POST", path: "/v1/client/sessions", handler: "realtime/create-session", doc: { status: 201 }, extension: true, grants: { tables: { models: "read", tenancy: "read" } }, audit: "client-session.create" },
]);
