import { consentPage } from "../../shared/http/consent-pages.js";
import { OAuthConsentQuery } from "../../shared/schemas/connector.js";
import * as oauth from "../../shared/services/connectors/oauth.js";
import { route } from "../route.js";

// Public: the browser the auth_url was opened in; the page names who asks before anything leaves the platform.
export const handler = route({ query: OAuthConsentQuery }, async ({ query }) => consentPage(query.state, await oauth.consentRequest(query.state), oauth.oauthUrls()));
