import { Reply } from "../../shared/http/reply.js";
import { ExecutionStreamQuery } from "../../shared/schemas/workflow-streams.js";
import { ExecutionParams } from "../../shared/schemas/workflows.js";
import { openExecutionStream } from "../../shared/services/workflows/stream.js";
import { route } from "../route.js";

/** The Last-Event-ID header wins over the query parameter; an unknown execution is a JSON 404 before the first frame. */
export const handler = route({ params: ExecutionParams, query: ExecutionStreamQuery }, async ({ params, query, caller, event, signal }) =>
  Reply.events(await openExecutionStream(caller, params.execution_id, event.headers["last-event-id"] ?? query.last_event_id, { signal })),
);
