import { area } from "../route-row.js";
import { ingestRows } from "./routes-ingest.js";

/** The observability area (docs/observability.md): each part's rows in its own file, joined here. */
export const observabilityRoutes = area({ errors: "observability", permissions: { read: "observability:read", write: "observability:write" } }, [...ingestRows]);
