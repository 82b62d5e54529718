import { area, type Grants } from "../route-row.js";

/** What every model-calling route needs: the catalog, the workspace's spend limit and totals, the usage log, the models themselves. */
const inference: Grants = { tables: { models: "read", usage: "readwrite", tenancy: "read" }, models: "invoke" };

export const inferenceRoutes = area({ permissions: { read: "inference:invoke", write: "inference:invoke" } }, [
  { method: "POST", path: "/v1/chat/completions", handler: "inference/chat", grants: inference, streaming: true, memoryMb: 1024 },
  { method: "POST", path: "/v1/fim/completions", handler: "inference/fim", grants: inference, streaming: true, memoryMb: 1024 },
  { method: "POST", path: "/v1/embeddings", handler: "inference/embeddings", grants: inference, memoryMb: 1024 },
]);
