import { routeFactory } from "../shared/http/route.js";
import { rowByKey, rowFor } from "./routes.js";

/** `route(spec, fn)`, bound to the route table: every handler's policy comes from its row. */
export const route = routeFactory({ byRequest: rowFor, byKey: rowByKey });
