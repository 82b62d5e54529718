/**
 * A small OAuth 2.0 authorization server on loopback for the connector tests: RFC 8414 metadata, an
 * authorization endpoint that consents at once (302 back with a code), and a token endpoint that checks
 * the client, the redirect URI and the PKCE verifier (S256), and issues short-lived tokens it can refresh.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestOAuthServer {
  issuer: string;
  metadataUrl: string;
  /** Access tokens issued and still good. */
  valid: Set<string>;
  /** Token requests, by grant type. */
  grants: string[];
  /** Seconds the access tokens it issues last. */
  expiresIn: number;
  close(): Promise<void>;
}

export async function startOAuthServer(client: { id: string; secret: string }, onToken: (token: string, previous?: string) => void = () => undefined): Promise<TestOAuthServer> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const refresh = new Map<string, string>();
  const state: TestOAuthServer = { issuer: "", metadataUrl: "", valid: new Set(), grants: [], expiresIn: 3600, close: async () => undefined };
  const issue = (previous?: string) => {
    const access = randomBytes(16).toString("hex");
    const refreshToken = randomBytes(16).toString("hex");
    if (previous) state.valid.delete(previous);
    state.valid.add(access);
    refresh.set(refreshToken, access);
    onToken(access, previous);
    return { access_token: access, refresh_token: refreshToken, token_type: "Bearer", expires_in: state.expiresIn };
  };
  const http: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, state.issuer);
    const json = (status: number, body: unknown) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(200, {
        issuer: state.issuer,
        authorization_endpoint: `${state.issuer}/authorize`,
        token_endpoint: `${state.issuer}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        scopes_supported: ["tools"],
      });
    }
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      if (q.get("client_id") !== client.id || q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) return json(400, { error: "invalid_request" });
      const code = randomBytes(8).toString("hex");
      codes.set(code, { challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")! });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const basic = req.headers.authorization?.startsWith("Basic ") ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":").map(decodeURIComponent) : undefined;
      const [id, secret] = basic ?? [form.get("client_id"), form.get("client_secret")];
      if (id !== client.id || secret !== client.secret) return json(401, { error: "invalid_client" });
      state.grants.push(form.get("grant_type") ?? "");
      if (form.get("grant_type") === "authorization_code") {
        const pending = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const challenge = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
        if (!pending || pending.challenge !== challenge || pending.redirectUri !== form.get("redirect_uri")) return json(400, { error: "invalid_grant" });
        return json(200, issue());
      }
      if (form.get("grant_type") === "refresh_token") {
        const previous = refresh.get(form.get("refresh_token") ?? "");
        if (!previous) return json(400, { error: "invalid_grant" });
        refresh.delete(form.get("refresh_token")!);
        return json(200, issue(previous));
      }
      return json(400, { error: "unsupported_grant_type" });
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  state.issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  state.metadataUrl = `${state.issuer}/.well-known/oauth-authorization-server`;
  state.close = () => new Promise((resolve) => http.close(() => resolve()));
  return state;
}
