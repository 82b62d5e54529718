/**
 * Connectors (docs/connectors.md): what is stored and the pure rules over it. A connector belongs to an
 * organization and was created in one workspace by one principal; its visibility says who may see it and
 * its owner follows from that (decision 30).
 */
import type { Caller } from "../caller.js";

export type ConnectorProtocol = "mcp" | "http";
export type ConnectorVisibility = "private" | "shared_workspace" | "shared_org";
export type OwnerType = "user" | "workspace" | "org";
/** Who a connection (activation or credentials) is for: the path's `{consumer_scope}`. */
export type ConsumerScope = "user" | "workspace" | "organization";
export type AuthMethodType = "oauth2" | "bearer" | "none";

/** OAuth 2.0 authorization-server metadata (RFC 8414), as given or discovered. */
export interface OAuthServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string | null;
  scopes_supported?: string[] | null;
  code_challenge_methods_supported?: string[] | null;
  [key: string]: unknown;
}

export interface ConnectorRecord {
  id: string;
  organization: string;
  /** The workspace it was created in. */
  workspace: string;
  creatorId: string;
  name: string;
  title: string | null;
  description: string;
  iconUrl: string | null;
  server: string;
  protocol: ConnectorProtocol;
  visibility: ConnectorVisibility;
  systemPrompt: string | null;
  authMethods: AuthMethodType[];
  /** The OAuth client (its secret sits in `secrets`, encrypted) and server, for `oauth2` connectors. */
  oauthClientId: string | null;
  oauthMetadata: OAuthServerMetadata | null;
  oauthMetadataUrl: string | null;
  /** Names of the headers sent to the server (values encrypted in `secrets`); never returned. */
  headerNames: string[];
  /** Envelope-encrypted JSON of `ConnectorSecrets` (shared/store/connectors/secrets.ts). */
  secrets: string | null;
  createdAt: string;
  modifiedAt: string;
}

/** What a connector keeps secret: the headers sent to its server and its OAuth client secret. */
export interface ConnectorSecrets {
  headers: Record<string, string>;
  clientSecret?: string;
}

/** A connection: the connector enabled for a consumer, or credentials a consumer stored for it. */
export interface ConnectionRecord {
  connectorId: string;
  kind: "activation" | "credentials";
  scope: ConsumerScope;
  /** The organization, workspace or principal it is for. */
  consumer: string;
  /** Credentials only: their name, title, type, default flag and encrypted secret. */
  name?: string;
  title?: string | null;
  authType?: AuthMethodType;
  isDefault?: boolean;
  /** Envelope-encrypted JSON of `StoredCredentials`. */
  secret?: string;
  /** Unix seconds when an OAuth access token stops working (not secret: lets status show without decrypting). */
  expiresAt?: number | null;
  createdAt: string;
  modifiedAt: string;
}

/** Credentials as stored (encrypted): never returned by any route. */
export interface StoredCredentials {
  bearerToken?: string;
  headers?: Record<string, string>;
  oauth?: { accessToken: string; refreshToken?: string; tokenType?: string; scope?: string };
}

/**
 * A pending OAuth authorization: bound to the caller who asked for the URL, and, once its consent page is
 * confirmed, to that browser (`nonceHash`, decision 0043); gone after `ttl`.
 */
export interface OAuthStateRecord {
  state: string;
  connectorId: string;
  organization: string;
  workspace: string;
  principal: string;
  /** The requester's kind and key, for the audit log's event when the callback stores the credentials. */
  principalType?: "user" | "service_account";
  keyId?: string;
  scope: ConsumerScope;
  credentialsName: string;
  credentialsTitle: string | null;
  codeVerifier: string;
  redirectUri: string;
  appReturnUrl: string | null;
  expiresAt: number;
  /** The authorization server's URL for this flow (PKCE challenge, state, redirect URI): where the confirmed consent page sends the browser. */
  providerUrl: string;
  /** What the consent page names: who asks, for which connector. */
  connectorName: string;
  workspaceName: string;
  organizationName: string;
  /** The digest of the nonce set as a cookie in the browser that confirmed the consent; absent until then. */
  nonceHash?: string;
}

export const ownerOf = (c: Pick<ConnectorRecord, "visibility" | "creatorId" | "workspace" | "organization">): { ownerType: OwnerType; ownerId: string } =>
  c.visibility === "shared_org" ? { ownerType: "org", ownerId: c.organization } : c.visibility === "shared_workspace" ? { ownerType: "workspace", ownerId: c.workspace } : { ownerType: "user", ownerId: c.creatorId };

/** Who may see a connector: its organization's members when shared there, its workspace's when shared there, else only its creator in its workspace. */
export function visibleTo(c: Pick<ConnectorRecord, "visibility" | "creatorId" | "workspace" | "organization">, caller: Pick<Caller, "organization" | "workspace" | "principal">): boolean {
  if (c.organization !== caller.organization) return false;
  if (c.visibility === "shared_org") return true;
  if (c.workspace !== caller.workspace) return false;
  return c.visibility === "shared_workspace" || c.creatorId === caller.principal;
}

/** The consumer id a scope means for this caller. */
export const consumerOf = (scope: ConsumerScope, caller: Pick<Caller, "organization" | "workspace" | "principal">): string =>
  scope === "organization" ? caller.organization : scope === "workspace" ? caller.workspace : caller.principal;

/** The scope name the API's `AuthenticationConfiguration.scope` and `connection_preferences` use. */
export const consumerType = (scope: ConsumerScope): OwnerType => (scope === "organization" ? "org" : scope);

/** A connection stays when a connector is unshared only if it is the creator's own (decision 30). */
export const keptOnUnshare = (connection: Pick<ConnectionRecord, "scope" | "consumer">, c: Pick<ConnectorRecord, "creatorId">): boolean =>
  connection.scope === "user" && connection.consumer === c.creatorId;

/** The connections that apply to a caller, most specific first: its own, its workspace's, its organization's. */
export function applicable<T extends Pick<ConnectionRecord, "scope" | "consumer">>(connections: T[], caller: Pick<Caller, "organization" | "workspace" | "principal">): T[] {
  const order: ConsumerScope[] = ["user", "workspace", "organization"];
  return order.flatMap((scope) => connections.filter((c) => c.scope === scope && c.consumer === consumerOf(scope, caller)));
}

/** A name can never be mistaken for an id: ids are UUIDs, names are not. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
