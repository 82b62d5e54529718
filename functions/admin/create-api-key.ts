import * as apiKeys from "../../shared/services/identity/api-keys.js";
import { Reply } from "../../shared/http/reply.js";
import { CreateApiKeyBody, NewApiKeyOut } from "../../shared/schemas/api-key.js";
import { route } from "../route.js";

// Extension (docs/decisions/0073-users-and-api-keys-over-the-api.md). 201 with the secret: the only time it is shown.
export const handler = route({ body: CreateApiKeyBody, response: NewApiKeyOut }, async ({ body, caller }) =>
  Reply.json(201, NewApiKeyOut.parse(await apiKeys.createForUser(caller, body)), { "cache-control": "no-store" }),
);
