import { publicUrl } from "../../shared/http/public-url.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { openApiDocument } from "./reference.js";

/** The OpenAPI document, with this deployment's base URL as its server (the stage or base path kept). */
export const handler = route({}, async ({ event }) =>
  Reply.json(200, { ...(await openApiDocument()), servers: [{ url: publicUrl(event, ""), description: "This deployment" }] }, { "cache-control": "public, max-age=300" }),
);
