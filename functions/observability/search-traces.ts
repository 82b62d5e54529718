import { searchHandler } from "./engine-handlers.js";

/** Traces derived from their spans at query time. */
export const handler = searchHandler("traces");
