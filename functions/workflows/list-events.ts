import { listEvents } from "../../shared/services/workflows/events.js";
import { EventListOut, EventListQuery } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ query: EventListQuery, response: EventListOut }, async ({ query, caller }) => {
  const page = await listEvents(caller, query);
  return { events: page.events, next_cursor: page.nextCursor };
});
