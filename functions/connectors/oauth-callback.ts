import { callbackOutcome } from "../../shared/http/consent-pages.js";
import { cookiesOf } from "../../shared/http/cookies.js";
import { browserCookieName } from "../../shared/domain/connectors/oauth-consent.js";
import { OAuthCallbackQuery } from "../../shared/schemas/connector.js";
import * as oauth from "../../shared/services/connectors/oauth.js";
import { route } from "../route.js";

// Public: the browser arrives here from the authorization server; the state names who asked, its cookie proves it is the browser that confirmed.
export const handler = route({ query: OAuthCallbackQuery }, async ({ query, event }) =>
  callbackOutcome(query.state, await oauth.callback(query, cookiesOf(event.headers)[browserCookieName(query.state)]), oauth.oauthUrls()),
);
