import { fieldsHandler } from "./engine-handlers.js";

export const handler = fieldsHandler("traces");
