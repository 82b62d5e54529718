import { formBody } from "../../shared/http/body.js";
import { toProvider } from "../../shared/http/consent-pages.js";
import { cookiesOf } from "../../shared/http/cookies.js";
import { consentCookieName } from "../../shared/domain/connectors/oauth-consent.js";
import { OAuthConsentForm } from "../../shared/schemas/connector.js";
import * as oauth from "../../shared/services/connectors/oauth.js";
import { route } from "../route.js";

// Public: the consent page's form, from the browser that read it (its cookie and token), which it binds to the flow.
export const handler = route({ body: OAuthConsentForm, parser: formBody }, async ({ body, event }) => {
  const headers = event.headers ?? {};
  const outcome = await oauth.confirmConsent({
    state: body.state,
    formToken: body.csrf,
    cookieToken: cookiesOf(headers)[consentCookieName(body.state)],
    origin: headers.origin,
    fetchSite: headers["sec-fetch-site"],
  });
  return toProvider(body.state, outcome, oauth.oauthUrls());
});
