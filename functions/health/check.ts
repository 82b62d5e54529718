import { Reply } from "../../shared/http/reply.js";
import { HealthOut } from "../../shared/schemas/health.js";
import { route } from "../route.js";

/** Answers `{"status":"ok"}`, never cached: a probe must see this deployment answer now. */
export const handler = route({ returns: HealthOut }, async () => Reply.json(200, HealthOut.parse({ status: "ok" }), { "cache-control": "no-store" }));
