/**
 * Connectors (beta, `/v1/connectors`): field names, enums and defaults are the OpenAPI's; request bodies
 * accept unknown fields and drop them, as the OpenAPI does not close these objects. docs/connectors.md.
 */
import * as z from "zod";
import { Uuid } from "./common.js";
import { queryBoolean, queryInt } from "./query.js";

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A connector's name names it in paths (`{connector_id_or_name}`): printable, no slash, never shaped like an id. */
export const ConnectorName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\u0000-\u001f\u007f/\\?#%]+$/, { message: "String should not contain control characters, '/', '\\', '?', '#' or '%'" })
  .refine((name) => !UUID_SHAPE.test(name), { message: "A connector name must not be a UUID" })
  // `/v1/connectors/oauth/callback` is a route: a connector named `oauth` could not be reached by name.
  .refine((name) => name !== "oauth", { message: "'oauth' is reserved" });

/** The server a connector talks to: an absolute http(s) URL (where it may resolve is checked when it is called). */
export const ServerUrl = z
  .string()
  .min(1)
  .max(2083)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { message: "Input should be an absolute http(s) URL without credentials" },
  );

export const ConsumerScope = z.enum(["user", "workspace", "organization"]);
export const Visibility = z.enum(["shared_org", "shared_workspace", "private"]);
export const AuthMethodType = z.enum(["oauth2", "bearer", "none", "github_app", "slack_app"]);

const HeaderName = z.string().min(1).max(256).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: "Input should be an HTTP header name" });
const HeaderValue = z.string().max(8192).regex(/^[^\r\n\u0000]*$/, { message: "Header values must not contain line breaks" });

export const OAuthServerMetadata = z.looseObject({
  issuer: ServerUrl,
  authorization_endpoint: ServerUrl,
  token_endpoint: ServerUrl,
  registration_endpoint: ServerUrl.nullish(),
  scopes_supported: z.array(z.string().max(256)).max(200).nullish(),
  code_challenge_methods_supported: z.array(z.string().max(64)).max(20).nullish(),
});

const AuthMethodIn = z.looseObject({ method_type: AuthMethodType });

const connectorFields = {
  name: ConnectorName,
  title: z.string().max(255).nullish(),
  description: z.string().max(10_000),
  icon_url: ServerUrl.nullish(),
  server: ServerUrl,
  system_prompt: z.string().max(100_000).nullish(),
  auth_methods: z.array(AuthMethodIn).max(5).nullish(),
};

export const CreateConnectorBody = z.object({
  ...connectorFields,
  protocol: z.enum(["mcp", "http"]).default("mcp"),
  visibility: Visibility.default("private"),
  headers: z.record(HeaderName, HeaderValue).nullish(),
  global_headers: z.record(HeaderName, z.object({ value: HeaderValue, is_secret: z.boolean().default(true) })).default({}),
  auth_data: z.object({ client_id: z.string().min(1).max(1024), client_secret: z.string().max(4096).nullish() }).nullish(),
  oauth2_server_metadata: OAuthServerMetadata.nullish(),
  oauth2_server_metadata_url: ServerUrl.nullish(),
});
export type CreateConnectorBody = z.output<typeof CreateConnectorBody>;

export const UpdateConnectorBody = z.object({
  name: ConnectorName.nullish(),
  title: z.string().max(255).nullish(),
  description: z.string().max(10_000).nullish(),
  icon_url: ServerUrl.nullish(),
  server: ServerUrl.nullish(),
  system_prompt: z.string().max(100_000).nullish(),
  auth_methods: z.array(AuthMethodIn).max(5).nullish(),
  protocol: z.enum(["mcp", "http"]).optional(),
});
export type UpdateConnectorBody = z.output<typeof UpdateConnectorBody>;

export const ConnectorIdParams = z.object({ connector_id: Uuid });
export const ConnectorRefParams = z.object({ connector_id_or_name: z.string().min(1).max(128) });
export const ActivateParams = z.object({ connector_id: Uuid, consumer_scope: ConsumerScope });
export const CredentialsScopeParams = z.object({ connector_id_or_name: z.string().min(1).max(128), consumer_scope: ConsumerScope });
export const CredentialsNameParams = z.object({ connector_id_or_name: z.string().min(1).max(128), consumer_scope: ConsumerScope, credentials_name: z.string().min(1).max(128) });
export const ToolCallParams = z.object({ connector_id_or_name: z.string().min(1).max(128), tool_name: z.string().min(1).max(256) });

/** `query_filters` arrives exploded (`active=true`) from the SDK, or as JSON from hand-written clients: both are read. */
export const ListConnectorsQuery = z
  .object({
    cursor: z.string().max(2048).optional(),
    page_size: queryInt().pipe(z.number().min(1).max(1000)).default(100),
    active: z.stringbool().optional(),
    query_filters: z.string().max(2048).optional(),
    fetch_user_data: z.string().optional(),
    fetch_customer_data: z.string().optional(),
  })
  .transform((q, ctx) => {
    let active = q.active;
    if (q.query_filters !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(q.query_filters);
      } catch {
        parsed = undefined;
      }
      const filters = z.object({ active: z.boolean().nullish() }).loose().safeParse(parsed);
      if (!filters.success) {
        ctx.addIssue({ code: "custom", path: ["query_filters"], message: "Input should be a JSON object of filters", input: q.query_filters });
        return z.NEVER;
      }
      active = filters.data.active ?? active;
    }
    return { cursor: q.cursor, page_size: q.page_size, active };
  });
export type ListConnectorsQuery = z.output<typeof ListConnectorsQuery>;

export const GetConnectorQuery = z.object({ fetch_customer_data: z.string().optional(), fetch_user_data: z.string().optional() });

export const AuthUrlQuery = z.object({
  app_return_url: ServerUrl.optional(),
  method_type: z.literal("oauth2", { message: "Only oauth2 connectors have an authorization URL" }).default("oauth2"),
  credentials_name: z.string().min(1).max(128).regex(/^[^\u0000-\u001f\u007f#]+$/).optional(),
  credentials_title: z.string().max(255).optional(),
  /** The scope the credentials are for (our extension; default `user`). */
  consumer_scope: ConsumerScope.default("user"),
  github_installation_link: queryBoolean(false),
  repo_installation_link: queryBoolean(false),
});
export type AuthUrlQuery = z.output<typeof AuthUrlQuery>;

export const OAuthCallbackQuery = z.object({
  state: z.string().min(1).max(256),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2083).optional(),
});

/** The consent page's link (auth_url) and its form: the state, and the form's double-submit token. */
export const OAuthConsentQuery = z.object({ state: z.string().min(1).max(256) });
export const OAuthConsentForm = z.object({ state: z.string().min(1).max(256), csrf: z.string().min(1).max(256) });

export const ListToolsQuery = z.object({
  page: queryInt().pipe(z.number().min(1)).default(1),
  page_size: queryInt().pipe(z.number().min(1).max(1000)).default(100),
  refresh: queryBoolean(false),
  pretty: queryBoolean(false),
  credentials_name: z.string().min(1).max(128).optional(),
});

export const CallToolQuery = z.object({ credentials_name: z.string().min(1).max(128).optional() });
export const CallToolBody = z.object({ arguments: z.record(z.string(), z.unknown()).default({}) });

export const CredentialsQuery = z.object({ auth_type: AuthMethodType.optional(), fetch_default: queryBoolean(false) });

export const CredentialsBody = z.object({
  name: z.string().min(1).max(128).regex(/^[^\u0000-\u001f\u007f#/]+$/, { message: "String should not contain control characters, '#' or '/'" }),
  title: z.string().max(255).nullish(),
  is_default: z.boolean().nullish(),
  credentials: z
    .object({
      bearer_token: z.string().min(1).max(8192).nullish(),
      headers: z.record(HeaderName, HeaderValue).nullish(),
      oauth: z.unknown().nullish(),
    })
    .nullish(),
});
export type CredentialsBody = z.output<typeof CredentialsBody>;

// Responses: built by the service, checked here so a wrong shape fails the test that made it.
export const MessageOut = z.object({ message: z.string() });

const CredentialsStatusOut = z.object({ status_type: z.enum(["valid", "invalid", "error"]), last_checked_at: z.string().nullable(), error_message: z.string().nullable().optional() }).nullable();

export const AuthenticationConfigurationOut = z.object({
  name: z.string(),
  title: z.string().nullable(),
  authentication_type: z.string(),
  scope: z.enum(["user", "org", "workspace", "system"]),
  status: CredentialsStatusOut.optional(),
  is_default: z.boolean(),
  creator_id: z.string().nullable(),
});

export const PublicAuthMethodOut = z.object({
  method_type: z.string(),
  headers: z.array(z.object({ name: z.string(), is_required: z.boolean(), is_secret: z.boolean() })).nullable(),
  global_headers: z.record(z.string(), z.unknown()),
  has_default_credentials: z.boolean(),
  oauth2_server_metadata: z.record(z.string(), z.unknown()).nullable(),
});

export const ConnectorOut = z.object({
  id: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string(),
  created_at: z.string(),
  modified_at: z.string(),
  server: z.string().nullable(),
  protocol: z.enum(["mcp", "http"]),
  supports_mcp: z.boolean(),
  icon_url: z.string().nullable(),
  server_card: z.null(),
  owner_id: z.string().nullable(),
  owner_type: z.enum(["user", "org", "workspace", "system"]),
  visibility: z.enum(["shared_global", "shared_org", "shared_workspace", "private"]),
  creator_id: z.string().nullable(),
  locale: z.null(),
  system_prompt: z.string().nullable(),
  supported_auth_methods: z.array(PublicAuthMethodOut),
  connection_preferences: z.null(),
  connection_credentials: z.array(AuthenticationConfigurationOut),
  active: z.boolean(),
  private_tool_execution: z.boolean(),
  mistral: z.boolean(),
  is_authenticated: z.boolean(),
  tools: z.null(),
  system_prompt_route: z.null(),
  connection_config: z.null(),
  execution_env: z.null(),
});
export type ConnectorOut = z.infer<typeof ConnectorOut>;

export const ConnectorListOut = z.object({ items: z.array(ConnectorOut), pagination: z.object({ next_cursor: z.string().nullable(), page_size: z.number().int() }) });

export const AuthUrlOut = z.object({ auth_url: z.string(), ttl: z.number().int() });
export const CredentialsListOut = z.object({ credentials: z.array(AuthenticationConfigurationOut), connector_preset_credentials_for_auth: z.array(z.string()) });
export const AuthMethodsOut = z.array(PublicAuthMethodOut);

export const ToolOut = z.looseObject({ name: z.string(), description: z.string().nullable().optional(), inputSchema: z.record(z.string(), z.unknown()) });
export const ToolsOut = z.array(ToolOut);
export const ToolCallOut = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  metadata: z.looseObject({ mcp_meta: z.looseObject({ isError: z.boolean(), structuredContent: z.record(z.string(), z.unknown()).nullable().optional(), _meta: z.record(z.string(), z.unknown()).nullable().optional() }).nullable().optional() }).nullable(),
});
