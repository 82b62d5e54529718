import { searchHandler } from "./engine-handlers.js";

export const handler = searchHandler("span_evaluations");
