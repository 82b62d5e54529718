import { routeFactory } from "../shared/http/route.js";
import { enforceRateLimit } from "../shared/services/identity/rate-limits.js";
import { rowByKey, rowFor } from "./routes.js";

/** `route(spec, fn)`, bound to the route table (every handler's policy comes from its row) and to the per-key rate limit. */
export const route = routeFactory({ byRequest: rowFor, byKey: rowByKey }, [enforceRateLimit]);
