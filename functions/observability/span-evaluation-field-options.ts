import { optionsHandler } from "./engine-handlers.js";

export const handler = optionsHandler("span_evaluations");
