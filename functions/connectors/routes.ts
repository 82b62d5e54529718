import { area } from "../route-row.js";

/**
 * Connectors (docs/connectors.md). Sharing rows name the spec's permissions: ShareConnectorToWorkspace is
 * `connectors:share-workspace`; ShareConnectorToOrg (`connectors:share-organization`, an organization
 * permission no workspace role holds) is checked by the service, the row asks `connectors:write`. Using a
 * connector (activating it, storing one's credentials, calling its tools) takes `connectors:read`; acting
 * for the workspace or organization takes the share permission of that scope (checked by the service).
 */
const connectors = { tables: { connectors: "readwrite" } } as const;
const secrets = { ...connectors, secrets: true } as const;

export const connectorRoutes = area({ permissions: { read: "connectors:read", write: "connectors:write" } }, [
  { method: "GET", path: "/v1/connectors", handler: "connectors/list", grants: { tables: { connectors: "read" } } },
  { method: "POST", path: "/v1/connectors", handler: "connectors/create", doc: { status: 201 }, grants: { tables: { connectors: "write" }, secrets: true }, audit: "connector.create" },
  // Also reads the workspace's and organization's names, which the consent page shows.
  { method: "GET", path: "/v1/connectors/{connector_id_or_name}/auth_url", handler: "connectors/auth-url", grants: { tables: { connectors: "readwrite", tenancy: "read" }, secrets: true } },
  { method: "PUT", path: "/v1/connectors/{connector_id}/share", handler: "connectors/share", grants: connectors, permission: "connectors:share-workspace", audit: "connector.share" },
  { method: "DELETE", path: "/v1/connectors/{connector_id}/share", handler: "connectors/unshare", grants: connectors, permission: "connectors:share-workspace", audit: "connector.unshare" },
  { method: "PUT", path: "/v1/connectors/{connector_id}/organization/share", handler: "connectors/share-organization", grants: connectors, audit: "connector.share" },
  { method: "DELETE", path: "/v1/connectors/{connector_id}/organization/share", handler: "connectors/unshare-organization", grants: connectors, audit: "connector.unshare" },
  { method: "POST", path: "/v1/connectors/{connector_id}/{consumer_scope}/activate", handler: "connectors/activate", grants: connectors, permission: "connectors:read", audit: "connector.activate" },
  // The spec's activate path for `organization`, spelled out: `{connector_id}/organization/` is also a literal
  // resource (organization/share), and API Gateway does not fall back from a literal segment to `{consumer_scope}`.
  { method: "POST", path: "/v1/connectors/{connector_id}/organization/activate", handler: "connectors/activate-organization", grants: connectors, permission: "connectors:read", extension: true, audit: "connector.activate" },
  { method: "POST", path: "/v1/connectors/{connector_id}/organization/deactivate", handler: "connectors/deactivate-organization", grants: connectors, permission: "connectors:read", extension: true, audit: "connector.deactivate" },
  // Extensions: the official SDK's other connector calls.
  { method: "GET", path: "/v1/connectors/{connector_id_or_name}", handler: "connectors/get", grants: { tables: { connectors: "read" } }, extension: true },
  { method: "PATCH", path: "/v1/connectors/{connector_id}", handler: "connectors/update", grants: connectors, extension: true, audit: "connector.update" },
  { method: "DELETE", path: "/v1/connectors/{connector_id}", handler: "connectors/delete", grants: connectors, extension: true, audit: "connector.delete" },
  { method: "POST", path: "/v1/connectors/{connector_id}/{consumer_scope}/deactivate", handler: "connectors/deactivate", grants: connectors, permission: "connectors:read", extension: true, audit: "connector.deactivate" },
  { method: "GET", path: "/v1/connectors/{connector_id_or_name}/authentication_methods", handler: "connectors/authentication-methods", grants: { tables: { connectors: "read" } }, extension: true },
  { method: "GET", path: "/v1/connectors/{connector_id_or_name}/tools", handler: "connectors/list-tools", grants: secrets, extension: true },
  { method: "POST", path: "/v1/connectors/{connector_id_or_name}/tools/{tool_name}/call", handler: "connectors/call-tool", grants: secrets, permission: "connectors:read", extension: true },
  { method: "POST", path: "/v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", handler: "connectors/create-credentials", grants: secrets, permission: "connectors:read", extension: true, audit: "connector-credentials.store" },
  { method: "PATCH", path: "/v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", handler: "connectors/update-credentials", grants: secrets, permission: "connectors:read", extension: true, audit: "connector-credentials.store" },
  // The SDK's per-scope credential calls (`/user/credentials`, `/workspace/credentials`, …) all land on `{consumer_scope}`:
  // API Gateway does not fall back from a literal segment to a variable one, so one spelling serves every method.
  { method: "GET", path: "/v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", handler: "connectors/list-credentials", grants: { tables: { connectors: "read" } }, extension: true },
  { method: "DELETE", path: "/v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", handler: "connectors/delete-all-credentials", grants: connectors, permission: "connectors:read", extension: true, audit: "connector-credentials.remove" },
  { method: "DELETE", path: "/v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials/{credentials_name}", handler: "connectors/delete-credentials", grants: connectors, permission: "connectors:read", extension: true, audit: "connector-credentials.remove" },
  // The OAuth consent page (auth_url points here) and its form, on the platform's own origin: the browser carries no key,
  // the state names the flow, and confirming binds it to that browser (decision 0043).
  { method: "GET", path: "/v1/connectors/oauth/consent", handler: "connectors/oauth-consent", grants: { tables: { connectors: "read" } }, auth: "public", extension: true, doc: { media: "text/html" } },
  { method: "POST", path: "/v1/connectors/oauth/consent", handler: "connectors/oauth-confirm", grants: { tables: { connectors: "readwrite" } }, auth: "public", extension: true, doc: { status: 302 } },
  // The OAuth redirect target: the authorization server sends the user's browser here, without our key; the one-time
  // state and the browser's cookie from the consent page are the credential.
  { method: "GET", path: "/v1/connectors/oauth/callback", handler: "connectors/oauth-callback", grants: secrets, auth: "public", extension: true, doc: { media: "text/html", redirects: true }, audit: "connector-credentials.store" },
]);
