import { Reply } from "../../shared/http/reply.js";
import { MessageOut, OAuthCallbackQuery } from "../../shared/schemas/connector.js";
import * as oauth from "../../shared/services/connectors/oauth.js";
import { route } from "../route.js";

// Public: the user's browser arrives here from the authorization server; the one-time state names the caller who asked.
export const handler = route({ query: OAuthCallbackQuery }, async ({ query }) => {
  const { message, returnUrl } = await oauth.callback(query);
  if (returnUrl) return Reply.redirect(returnUrl);
  return Reply.json(200, MessageOut.parse({ message }));
});
