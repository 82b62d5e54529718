import { area } from "../route-row.js";
import { engineRows } from "./routes-engine.js";

// Observability (beta): the spec's 25 operations, each helper's rows in its own file (docs/observability.md).
export const observabilityRoutes = area({ errors: "observability", permissions: { read: "observability:read", write: "observability:write" } }, [...engineRows]);
