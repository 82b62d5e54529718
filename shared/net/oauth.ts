/**
 * OAuth 2.0 for connectors, through the official MCP SDK's client helpers (RFC 8414 / RFC 9728 discovery,
 * PKCE S256, code exchange, refresh), every request through the outbound guard.
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthServerMetadata } from "../domain/connectors/records.js";
import { UpstreamError } from "../domain/errors.js";
import { connectorFetch, serverFailure } from "./tools.js";

export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
}

export interface OAuthTokenSet {
  accessToken: string;
  refreshToken?: string;
  tokenType?: string;
  scope?: string;
  /** Unix seconds, when the server said how long the token lasts. */
  expiresAt: number | null;
}

const fetchFn = () => connectorFetch() as unknown as typeof fetch;

/**
 * The authorization server's metadata: as the connector gives it, from its metadata URL, or discovered
 * from the connector's server (protected-resource metadata, then the server's own well-known documents).
 */
export async function discoverMetadata(source: { metadata: OAuthServerMetadata | null; metadataUrl: string | null; server: string }): Promise<OAuthServerMetadata> {
  if (source.metadata) return source.metadata;
  try {
    if (source.metadataUrl) {
      const url = new URL(source.metadataUrl);
      const response = await fetchFn()(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
      if (!response.ok) throw new UpstreamError(502, `The OAuth metadata URL answered ${response.status}`);
      return (await response.json()) as OAuthServerMetadata;
    }
    const info = await discoverOAuthServerInfo(source.server, { fetchFn: fetchFn() });
    const metadata = info.authorizationServerMetadata ?? (await discoverAuthorizationServerMetadata(info.authorizationServerUrl, { fetchFn: fetchFn() }));
    if (!metadata) throw new UpstreamError(502, "The connector's server publishes no OAuth authorization server metadata; give oauth2_server_metadata when creating it");
    return metadata as unknown as OAuthServerMetadata;
  } catch (error) {
    throw serverFailure(error, "OAuth discovery");
  }
}

/** The authorization URL (PKCE S256, the given state) and the verifier to keep for the code exchange. */
export async function authorizationUrl(metadata: OAuthServerMetadata, client: OAuthClient, redirectUrl: string, state: string, scope?: string): Promise<{ url: string; codeVerifier: string }> {
  const { authorizationUrl, codeVerifier } = await startAuthorization(metadata.issuer, {
    metadata: metadata as never,
    clientInformation: { client_id: client.clientId, ...(client.clientSecret ? { client_secret: client.clientSecret } : {}) },
    redirectUrl,
    state,
    scope,
  });
  return { url: authorizationUrl.toString(), codeVerifier };
}

const toTokenSet = (tokens: { access_token: string; refresh_token?: string; token_type?: string; scope?: string; expires_in?: number }, now: number): OAuthTokenSet => ({
  accessToken: tokens.access_token,
  refreshToken: tokens.refresh_token,
  tokenType: tokens.token_type,
  scope: tokens.scope,
  expiresAt: typeof tokens.expires_in === "number" ? Math.floor(now / 1000) + tokens.expires_in : null,
});

export async function exchangeCode(metadata: OAuthServerMetadata, client: OAuthClient, code: string, codeVerifier: string, redirectUri: string): Promise<OAuthTokenSet> {
  try {
    const tokens = await exchangeAuthorization(metadata.issuer, {
      metadata: metadata as never,
      clientInformation: { client_id: client.clientId, ...(client.clientSecret ? { client_secret: client.clientSecret } : {}) },
      authorizationCode: code,
      codeVerifier,
      redirectUri,
      fetchFn: fetchFn(),
    });
    return toTokenSet(tokens, Date.now());
  } catch (error) {
    throw serverFailure(error, "the OAuth code exchange");
  }
}

export async function refreshTokens(metadata: OAuthServerMetadata, client: OAuthClient, refreshToken: string): Promise<OAuthTokenSet> {
  try {
    const tokens = await refreshAuthorization(metadata.issuer, {
      metadata: metadata as never,
      clientInformation: { client_id: client.clientId, ...(client.clientSecret ? { client_secret: client.clientSecret } : {}) },
      refreshToken,
      fetchFn: fetchFn(),
    });
    // A server may keep the refresh token the same and not send it again.
    return toTokenSet({ ...tokens, refresh_token: tokens.refresh_token ?? refreshToken }, Date.now());
  } catch (error) {
    throw serverFailure(error, "the OAuth token refresh");
  }
}
