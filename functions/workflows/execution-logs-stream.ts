import { Reply } from "../../shared/http/reply.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { ExecutionLogStreamQuery } from "../../shared/schemas/workflow-streams.js";
import { openExecutionLogStream } from "../../shared/services/workflows/logs.js";
import { route } from "../route.js";

/** `log` frames until the execution is closed and its last lines are sent; refusals are JSON errors before the first frame. */
export const handler = route({ params: ExecutionParams, query: ExecutionLogStreamQuery }, async ({ params, query, caller, event, signal }) =>
  Reply.events(await openExecutionLogStream(caller, params.execution_id, query, event.headers["last-event-id"] ?? undefined, { signal })),
);
