/**
 * The OAuth consent flow's browser answers (decision 0043): the consent page with its double-submit cookie,
 * the redirect to the authorization server with the browser-binding cookie, and the outcome pages.
 */
import { browserCookieName, consentCookieName } from "../domain/connectors/oauth-consent.js";
import { clearCookie, setCookie } from "./cookies.js";
import { htmlPage } from "./page.js";
import { Reply } from "./reply.js";

/** The flow's URLs as configuration gives them (shared/services/connectors/oauth.ts `oauthUrls`). */
export interface FlowUrls {
  consentPath: string;
  callbackPath: string;
  secure: boolean;
}

export interface Refused {
  refused: { status: number; title: string; message: string };
}

/** As long as the authorization URL itself lasts. */
const FLOW_SECONDS = 600;

const SCOPES: Record<string, string> = { user: "you", workspace: "the whole workspace", organization: "the whole organization" };

export const refusalPage = ({ refused }: Refused): Reply => htmlPage({ status: refused.status, title: refused.title, paragraphs: [refused.message] });

export function consentPage(
  state: string,
  request: Refused | { organizationName: string; workspaceName: string; connectorName: string; providerOrigin: string; scope: string; credentialsName: string; csrf: string },
  urls: FlowUrls,
): Reply {
  if ("refused" in request) return refusalPage(request);
  return htmlPage({
    status: 200,
    title: "Authorize a connector",
    paragraphs: [
      `The workspace "${request.workspaceName}" of the organization "${request.organizationName}" asks to use your account at ${request.providerOrigin} through its connector "${request.connectorName}".`,
      "If you continue, the tokens the authorization server issues are stored for that workspace, and its connector acts with them. If you did not ask for this, close this page.",
    ],
    facts: [
      ["Organization", request.organizationName],
      ["Workspace", request.workspaceName],
      ["Connector", request.connectorName],
      ["Authorization server", request.providerOrigin],
      ["Credentials for", `${SCOPES[request.scope] ?? request.scope} (named "${request.credentialsName}")`],
    ],
    form: { action: urls.consentPath, fields: { state, csrf: request.csrf }, submit: `Continue to ${new URL(request.providerOrigin).host}`, redirectsTo: [request.providerOrigin] },
    headers: { "set-cookie": setCookie(consentCookieName(state), request.csrf, { path: urls.consentPath, maxAgeSeconds: FLOW_SECONDS, sameSite: "Strict", secure: urls.secure }) },
  });
}

/** The confirmed consent: off to the authorization server, this browser holding the flow's nonce (sent back only to the callback). */
export function toProvider(state: string, outcome: Refused | { providerUrl: string; nonce: string }, urls: FlowUrls): Reply {
  if ("refused" in outcome) return refusalPage(outcome);
  // Lax: the authorization server's redirect back is a top-level navigation from another site.
  const cookie = setCookie(browserCookieName(state), outcome.nonce, { path: urls.callbackPath, maxAgeSeconds: FLOW_SECONDS, sameSite: "Lax", secure: urls.secure });
  return new Reply(302, null, { location: outcome.providerUrl, "cache-control": "no-store", "set-cookie": cookie, "referrer-policy": "no-referrer" });
}

/** The callback's answer: back to the application, or a page that says what happened. */
export function callbackOutcome(state: string, outcome: Refused | { message: string; returnUrl: string | null }, urls: FlowUrls): Reply {
  if ("refused" in outcome) return refusalPage(outcome);
  const cookie = clearCookie(browserCookieName(state), { path: urls.callbackPath, sameSite: "Lax", secure: urls.secure });
  if (outcome.returnUrl) return new Reply(302, null, { location: outcome.returnUrl, "cache-control": "no-store", "set-cookie": cookie, "referrer-policy": "no-referrer" });
  return htmlPage({ status: 200, title: outcome.message, paragraphs: ["You can close this page and go back to the application."], headers: { "set-cookie": cookie } });
}
