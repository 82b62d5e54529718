import { area } from "../route-row.js";
import { datasetRows } from "./routes-datasets.js";
import { ingestRows } from "./routes-ingest.js";

/** Observability (beta), docs/observability.md: each part's rows in its own file, joined here. */
export const observabilityRoutes = area({ errors: "observability", permissions: { read: "observability:read", write: "observability:write" } }, [...ingestRows, ...datasetRows]);
