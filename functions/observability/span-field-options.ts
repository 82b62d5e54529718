import { optionsHandler } from "./engine-handlers.js";

export const handler = optionsHandler("spans");
