/**
 * OAuth 2.0 for connectors (docs/connectors.md): `auth_url` discovers the authorization server, makes a
 * PKCE verifier and a state bound to the caller (organization, workspace, principal, scope, credentials
 * name), keeps both until `ttl`, and answers the authorization URL; the callback route takes the state
 * once, exchanges the code and stores the tokens sealed as the caller's credentials. Tokens are refreshed
 * when a call finds them expired.
 */
import { randomBytes } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import type { ConnectorRecord, StoredCredentials } from "../../domain/connectors/records.js";
import { mayActOnBehalfOf } from "../../domain/connectors/sharing.js";
import { ApiError, BadRequest, UpstreamError } from "../../domain/errors.js";
import { authorizationUrl, discoverMetadata, exchangeCode, refreshTokens } from "../../net/oauth.js";
import type { AuthUrlQuery } from "../../schemas/connector.js";
import { connectorsStore } from "../../store/connectors/index.js";
import { recordAudit } from "../audit/record.js";
import { connectorTargets, found, secretsOf } from "./connectors.js";
import { store, type credentialsContext } from "./credentials.js";

/** How long an authorization URL (its state and verifier) stays good. */
export const AUTH_URL_TTL_SECONDS = 600;
export const CALLBACK_PATH = "/v1/connectors/oauth/callback";

class OAuthStateUnknown extends ApiError {
  constructor() {
    super(400, "invalid_request_error", "This authorization is unknown, used or expired: ask for a new auth_url", "oauth_state_invalid");
  }
}

export async function authUrl(caller: Caller, ref: string, query: AuthUrlQuery, callbackUrl: string): Promise<{ auth_url: string; ttl: number }> {
  const connector = await found(caller, ref);
  if (!connector.authMethods.includes("oauth2") || !connector.oauthClientId) {
    throw new BadRequest(`Connector '${connector.name}' does not authenticate with OAuth 2.0`, "oauth_not_supported", "method_type");
  }
  mayActOnBehalfOf(query.consumer_scope, caller);
  const metadata = await discoverMetadata({ metadata: connector.oauthMetadata, metadataUrl: connector.oauthMetadataUrl, server: connector.server });
  const { clientSecret } = await secretsOf(connector);
  const state = randomBytes(32).toString("base64url");
  const { url, codeVerifier } = await authorizationUrl(metadata, { clientId: connector.oauthClientId, clientSecret }, callbackUrl, state, (metadata.scopes_supported ?? undefined)?.join(" ") || undefined);
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
    redirectUri: callbackUrl,
    appReturnUrl: query.app_return_url ?? null,
    expiresAt: Math.floor(Date.now() / 1000) + AUTH_URL_TTL_SECONDS,
  });
  return { auth_url: url, ttl: AUTH_URL_TTL_SECONDS };
}

/**
 * The authorization server sent the user back: exchange the code and keep the tokens. Answers where to
 * send the user (the `app_return_url` given to auth_url) or a message; never the tokens.
 */
export async function callback(query: { state: string; code?: string; error?: string; error_description?: string }): Promise<{ message: string; returnUrl: string | null }> {
  const pending = await connectorsStore.takeOAuthState(query.state);
  if (!pending || pending.expiresAt * 1000 < Date.now()) throw new OAuthStateUnknown();
  const connector = await connectorsStore.get(pending.organization, pending.connectorId);
  if (!connector || !connector.oauthClientId) throw new OAuthStateUnknown();
  if (query.error || !query.code) throw new BadRequest(`The authorization server refused: ${query.error ?? "no code"}${query.error_description ? ` (${query.error_description})` : ""}`, "oauth_denied");
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
  return { message: `Connector '${connector.name}' is authorized`, returnUrl: pending.appReturnUrl };
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
