import { aggregateHandler } from "./engine-handlers.js";

export const handler = aggregateHandler("spans");
