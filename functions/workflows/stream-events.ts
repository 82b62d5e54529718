import { Reply } from "../../shared/http/reply.js";
import { openStream } from "../../shared/services/workflows/stream.js";
import { EventStreamQuery } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** Refusals (no execution named, an unknown one, a bad Last-Event-ID) are JSON errors before the first frame. */
export const handler = route({ query: EventStreamQuery }, async ({ query, caller, event, signal }) =>
  Reply.events(await openStream(caller, query, event.headers["last-event-id"] ?? undefined, { signal })),
);
