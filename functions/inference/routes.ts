import { area, type Grants } from "../route-row.js";

/** What every model-calling route needs: the catalog, the workspace's spend limit and totals, the usage log, the models themselves. */
const inference: Grants = { tables: { models: "read", usage: "readwrite", tenancy: "read" }, models: "invoke" };
/** Model calls that record a span (docs/observability/ingest.md): the point store and the analytical store too. */
const spanned: Grants = { ...inference, tables: { ...inference.tables, telemetry: "write" }, telemetry: "write" };

export const inferenceRoutes = area({ permissions: { read: "inference:invoke", write: "inference:invoke" } }, [
  { method: "POST", path: "/v1/chat/completions", handler: "inference/chat", grants: spanned, streaming: true, memoryMb: 1024 },
  { method: "POST", path: "/v1/fim/completions", handler: "inference/fim", grants: spanned, streaming: true, memoryMb: 1024 },
  { method: "POST", path: "/v1/embeddings", handler: "inference/embeddings", grants: spanned, memoryMb: 1024 },
  // The SDK's classifiers: the moderation path batch jobs already run, as routes (extensions: not in our spec).
  { method: "POST", path: "/v1/moderations", handler: "inference/moderations", grants: inference, memoryMb: 1024, extension: true },
  { method: "POST", path: "/v1/chat/moderations", handler: "inference/chat-moderations", grants: inference, memoryMb: 1024, extension: true },
  { method: "POST", path: "/v1/classifications", handler: "inference/classifications", grants: inference, memoryMb: 1024, extension: true },
  { method: "POST", path: "/v1/chat/classifications", handler: "inference/chat-classifications", grants: inference, memoryMb: 1024, extension: true },
]);
