import { aggregateHandler } from "./engine-handlers.js";

/** Not in the official SDK: served by HTTP only. */
export const handler = aggregateHandler("span_evaluations");
