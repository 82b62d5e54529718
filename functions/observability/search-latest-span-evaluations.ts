import { searchHandler } from "./engine-handlers.js";

/** The latest evaluation per (span, evaluation name), then the expression over those. */
export const handler = searchHandler("span_evaluations", { latest: true });
