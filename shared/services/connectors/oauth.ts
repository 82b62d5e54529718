/**
 * OAuth 2.0 for connectors (docs/connectors.md, decisions 0031 and 0043): `auth_url` checks the return URL
 * against the deployment's list, discovers the authorization server, makes a PKCE verifier and a state bound to
 * the caller (organization, workspace, principal, scope, credentials name), keeps both until `ttl`, and answers
 * the platform's consent page. That page names who asks and for which connector; confirming it binds the flow
 * to the browser (a nonce cookie whose digest the state keeps) and sends it to the authorization server. The
 * callback takes the state once, from that browser only, exchanges the code and stores the tokens sealed as the
 * caller's credentials. Every URL is built from configuration (PUBLIC_URL), never from request headers. Tokens
 * are refreshed when a call finds them expired.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { OAUTH_CALLBACK_URL_ENV, oauthReturnUrls, publicBaseUrl } from "../../config.js";
import type { Caller } from "../../domain/caller.js";
import { nonceDigest, returnUrlAllowed } from "../../domain/connectors/oauth-consent.js";
import type { ConnectorRecord, OAuthStateRecord, StoredCredentials } from "../../domain/connectors/records.js";
import { mayActOnBehalfOf } from "../../domain/connectors/sharing.js";
import { BadRequest, Unprocessable, UpstreamError } from "../../domain/errors.js";
import { authorizationUrl, discoverMetadata, exchangeCode, refreshTokens } from "../../net/oauth.js";
import type { AuthUrlQuery } from "../../schemas/connector.js";
import { connectorsStore } from "../../store/connectors/index.js";
import { tenancyStore } from "../../store/tenancy.js";
import { recordAudit } from "../audit/record.js";
import { connectorTargets, found, secretsOf } from "./connectors.js";
import { store, type credentialsContext } from "./credentials.js";

/** How long an authorization URL (its state and verifier) stays good. */
export const AUTH_URL_TTL_SECONDS = 600;
export const CALLBACK_PATH = "/v1/connectors/oauth/callback";
export const CONSENT_PATH = "/v1/connectors/oauth/consent";

/** The flow's URLs, from configuration only; `secure` when browsers reach them over HTTPS (the cookies' Secure flag). */
export function oauthUrls(): { origin: string; consent: string; callback: string; consentPath: string; callbackPath: string; secure: boolean } {
  const base = publicBaseUrl();
  const consent = `${base}${CONSENT_PATH}`;
  const callback = process.env[OAUTH_CALLBACK_URL_ENV] || `${base}${CALLBACK_PATH}`;
  return { origin: new URL(base).origin, consent, callback, consentPath: new URL(consent).pathname, callbackPath: new URL(callback).pathname, secure: base.startsWith("https:") };
}

export async function authUrl(caller: Caller, ref: string, query: AuthUrlQuery): Promise<{ auth_url: string; ttl: number }> {
  // Before anything else: an unlisted return URL is the caller's mistake whatever the connector.
  if (query.app_return_url !== undefined && !returnUrlAllowed(query.app_return_url, oauthReturnUrls())) {
    throw new Unprocessable([{ loc: ["query", "app_return_url"], msg: "This deployment does not allow this return URL (CONNECTOR_OAUTH_RETURN_URLS)", type: "value_error" }]);
  }
  const connector = await found(caller, ref);
  if (!connector.authMethods.includes("oauth2") || !connector.oauthClientId) {
    throw new BadRequest(`Connector '${connector.name}' does not authenticate with OAuth 2.0`, "oauth_not_supported", "method_type");
  }
  mayActOnBehalfOf(query.consumer_scope, caller);
  const urls = oauthUrls();
  const metadata = await discoverMetadata({ metadata: connector.oauthMetadata, metadataUrl: connector.oauthMetadataUrl, server: connector.server });
  const { clientSecret } = await secretsOf(connector);
  const state = randomBytes(32).toString("base64url");
  const [{ url, codeVerifier }, workspace, organization] = await Promise.all([
    authorizationUrl(metadata, { clientId: connector.oauthClientId, clientSecret }, urls.callback, state, (metadata.scopes_supported ?? undefined)?.join(" ") || undefined),
    tenancyStore.getWorkspace(caller.organization, caller.workspace),
    tenancyStore.getOrganization(caller.organization),
  ]);
  await connectorsStore.putOAuthState({
    state,
    connectorId: connector.id,
    organization: caller.organization,
    workspace: caller.workspace,
    principal: caller.principal,
    principalType: caller.principalType,
    keyId: caller.keyId,
    scope: query.consumer_scope,
    credentialsName: query.credentials_name ?? "default",
    credentialsTitle: query.credentials_title ?? null,
    codeVerifier,
    redirectUri: urls.callback,
    appReturnUrl: query.app_return_url ?? null,
    expiresAt: Math.floor(Date.now() / 1000) + AUTH_URL_TTL_SECONDS,
    providerUrl: url,
    connectorName: connector.title ? `${connector.title} (${connector.name})` : connector.name,
    workspaceName: workspace?.name ?? caller.workspace,
    organizationName: organization?.name ?? caller.organization,
  });
  return { auth_url: `${urls.consent}?state=${encodeURIComponent(state)}`, ttl: AUTH_URL_TTL_SECONDS };
}

/** A page the browser is shown instead of going on: why, and the status it answers with. */
export interface Refusal {
  refused: { status: number; title: string; message: string };
}

const UNKNOWN: Refusal = { refused: { status: 400, title: "This authorization link is no longer valid", message: "It is unknown, already used or expired. Ask the application for a new one." } };
const CONFIRMED: Refusal = { refused: { status: 409, title: "This authorization was already confirmed", message: "It was confirmed in a browser already and can only be completed there. Ask the application for a new link." } };
const OTHER_BROWSER: Refusal = {
  refused: {
    status: 403,
    title: "This authorization was not confirmed in this browser",
    message: "The sign-in must be completed in the browser that confirmed the request on the platform's page. Nothing was stored. Ask the application for a new link and open it yourself.",
  },
};
const CROSS_SITE: Refusal = { refused: { status: 403, title: "This confirmation did not come from the consent page", message: "Open the authorization link again and confirm on the page itself." } };

const live = (record: OAuthStateRecord | undefined): record is OAuthStateRecord => !!record && record.expiresAt * 1000 >= Date.now();

export interface ConsentRequest {
  /** What the page names. */
  organizationName: string;
  workspaceName: string;
  connectorName: string;
  providerOrigin: string;
  scope: string;
  credentialsName: string;
  /** The double-submit token: set as a cookie and in the form; the confirmation must carry both, equal. */
  csrf: string;
}

/** What the consent page shows for a state, or why it cannot be shown. */
export async function consentRequest(state: string): Promise<ConsentRequest | Refusal> {
  const record = await connectorsStore.getOAuthState(state);
  if (!live(record)) return UNKNOWN;
  if (record.nonceHash) return CONFIRMED;
  return {
    organizationName: record.organizationName,
    workspaceName: record.workspaceName,
    connectorName: record.connectorName,
    providerOrigin: new URL(record.providerUrl).origin,
    scope: record.scope,
    credentialsName: record.credentialsName,
    csrf: randomBytes(32).toString("base64url"),
  };
}

const sameToken = (a: string | undefined, b: string | undefined): boolean => !!a && !!b && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The user confirmed on the consent page: checks that the form came from that page in this browser (the
 * double-submit token, and the Origin a browser sends with a form), binds the flow to this browser once and
 * answers where to send it, with the nonce to set as its cookie.
 */
export async function confirmConsent(input: { state: string; formToken: string; cookieToken: string | undefined; origin: string | undefined; fetchSite: string | undefined }): Promise<{ providerUrl: string; nonce: string } | Refusal> {
  const { origin } = oauthUrls();
  if (input.origin !== undefined && input.origin !== origin) return CROSS_SITE;
  if (input.fetchSite !== undefined && input.fetchSite !== "same-origin") return CROSS_SITE;
  if (!sameToken(input.formToken, input.cookieToken)) return CROSS_SITE;
  const current = await connectorsStore.getOAuthState(input.state);
  if (!live(current)) return UNKNOWN;
  if (current.nonceHash) return CONFIRMED;
  const nonce = randomBytes(32).toString("base64url");
  const bound = await connectorsStore.confirmOAuthState(input.state, nonceDigest(nonce));
  if (!bound) return CONFIRMED;
  return { providerUrl: bound.providerUrl, nonce };
}

/**
 * The authorization server sent the browser back: from the browser that confirmed the consent only (its nonce
 * cookie), exchange the code and keep the tokens. Answers where to send the user (an allowed `app_return_url`)
 * or a message; never the tokens.
 */
export async function callback(
  query: { state: string; code?: string; error?: string; error_description?: string },
  browserNonce: string | undefined,
): Promise<{ message: string; returnUrl: string | null } | Refusal> {
  if (!browserNonce) return (await connectorsStore.getOAuthState(query.state)) ? OTHER_BROWSER : UNKNOWN;
  const taken = await connectorsStore.takeOAuthState(query.state, nonceDigest(browserNonce));
  if (taken === "mismatch") return OTHER_BROWSER;
  if (taken === "unknown" || !live(taken.taken)) return UNKNOWN;
  const pending = taken.taken;
  const connector = await connectorsStore.get(pending.organization, pending.connectorId);
  if (!connector || !connector.oauthClientId) return UNKNOWN;
  if (query.error || !query.code) {
    return { refused: { status: 400, title: "The authorization server refused", message: `${query.error ?? "It sent no code"}${query.error_description ? `: ${query.error_description}` : ""}. Nothing was stored.` } };
  }
  const metadata = await discoverMetadata({ metadata: connector.oauthMetadata, metadataUrl: connector.oauthMetadataUrl, server: connector.server });
  const { clientSecret } = await secretsOf(connector);
  const tokens = await exchangeCode(metadata, { clientId: connector.oauthClientId, clientSecret }, query.code, pending.codeVerifier, pending.redirectUri);
  await store(
    connector,
    { organization: pending.organization, workspace: pending.workspace, principal: pending.principal },
    pending.scope,
    {
      name: pending.credentialsName,
      title: pending.credentialsTitle,
      isDefault: null,
      authType: "oauth2",
      secret: { oauth: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenType: tokens.tokenType, scope: tokens.scope } },
      expiresAt: tokens.expiresAt,
    },
    "upsert",
  );
  // The public callback has no caller: the change is the requester's, whose browser completed the consent.
  await recordAudit({
    organization: pending.organization,
    workspace: pending.workspace,
    operation: "connector-credentials.store",
    targets: connectorTargets(connector),
    after: { scope: pending.scope, name: pending.credentialsName, auth_type: "oauth2" },
    actor: { kind: pending.principalType ?? "user", id: pending.principal, ...(pending.keyId ? { keyId: pending.keyId } : {}) },
  });
  // Checked again: the list may have changed since auth_url.
  const returnUrl = pending.appReturnUrl && returnUrlAllowed(pending.appReturnUrl, oauthReturnUrls()) ? pending.appReturnUrl : null;
  return { message: `Connector '${connector.name}' is authorized`, returnUrl };
}

/** Refreshes expired (or nearly expired) OAuth credentials in place; answers the credentials to use. */
export async function fresh(connector: ConnectorRecord, record: Parameters<typeof credentialsContext>[0] & { expiresAt?: number | null; title?: string | null; isDefault?: boolean }, secret: StoredCredentials): Promise<StoredCredentials> {
  if (!secret.oauth || !record.expiresAt || record.expiresAt - 60 > Date.now() / 1000) return secret;
  if (!secret.oauth.refreshToken) throw new UpstreamError(502, "The connector's OAuth access token expired and there is no refresh token: authorize again through auth_url");
  if (!connector.oauthClientId) throw new UpstreamError(502, "The connector has no OAuth client to refresh its token with");
  const metadata = await discoverMetadata({ metadata: connector.oauthMetadata, metadataUrl: connector.oauthMetadataUrl, server: connector.server });
  const { clientSecret } = await secretsOf(connector);
  const tokens = await refreshTokens(metadata, { clientId: connector.oauthClientId, clientSecret }, secret.oauth.refreshToken);
  const next: StoredCredentials = { oauth: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenType: tokens.tokenType, scope: tokens.scope } };
  const consumer = { organization: connector.organization, workspace: record.scope === "workspace" ? record.consumer : connector.workspace, principal: record.consumer };
  await store(connector, consumer, record.scope, { name: record.name!, title: record.title ?? null, isDefault: record.isDefault ?? null, authType: "oauth2", secret: next, expiresAt: tokens.expiresAt }, "upsert");
  return next;
}
