/**
 * Who may open a realtime socket, and with what: the credential of the upgrade request (an API key, or a client
 * secret in the Authorization header or offered as a subprotocol), then what every model call checks (permission,
 * rate limit, the model and the key's model list) and the model's provider. The socket server
 * (functions/upload-service/realtime.ts) refuses an unknown credential on the upgrade and tells any other refusal on
 * the socket.
 */
import { bearerKey, plainKey } from "../../domain/api-keys.js";
import type { Caller } from "../../domain/caller.js";
import { Forbidden } from "../../domain/errors.js";
import { permits, type Permission } from "../../domain/identity/permissions.js";
import { requireEndpoint } from "../../domain/models.js";
import { isClientSecret } from "../../domain/realtime/client-sessions.js";
import { validated } from "../../domain/validation.js";
import { providerNamed } from "../../inference/registry.js";
// Registers the Amazon Transcribe provider in this process (shared/inference/registry.ts registerProviderFactory).
import "../../inference/providers/amazon-transcribe.js";
import { UnsupportedByProvider } from "../../inference/types.js";
import { RealtimeQuery } from "../../schemas/realtime.js";
import { resolveCaller } from "../identity/callers.js";
import { enforceRateLimit } from "../identity/rate-limits.js";
import { bodyModel } from "../models/catalog.js";
import { clientSessionCaller } from "./client-sessions.js";
import type { LiveProvider, SessionSetup } from "./session.js";

export interface Authenticated {
  caller: Caller;
  /** The model a client secret is for; none for an API key. */
  model?: string;
}

/**
 * The caller of an upgrade request, or undefined when its credential is missing or refused. `header` reads a
 * lower-case name. A browser's subprotocols are read only when no Authorization header came, and carry only client
 * secrets (never an API key, which a browser must not hold).
 */
export async function authenticate(header: (name: string) => string | undefined): Promise<Authenticated | undefined> {
  const authorization = header("authorization");
  const offered = (header("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const credential = authorization !== undefined ? bearerKey(authorization) : (offered.find(isClientSecret) ?? plainKey(header("x-api-key")));
  if (!credential) return undefined;
  if (isClientSecret(credential)) {
    const session = await clientSessionCaller(credential);
    return session && { caller: session.caller, model: session.grant.model };
  }
  const caller = await resolveCaller(credential);
  return caller && { caller };
}

/** The session an authenticated caller may open with this query, or the refusal (thrown) to tell it on the socket. */
export async function admitSession(who: Authenticated, query: URLSearchParams, requestId: string, policy: { permission: Permission; route: string; maxSeconds?: number }): Promise<SessionSetup> {
  const { model: name, language } = validated(RealtimeQuery, Object.fromEntries(query), "query");
  const caller = who.caller;
  // As a route's chain refuses it (shared/http/route.ts `admitted`).
  if (!permits(caller, policy.permission)) throw new Forbidden(`This key's roles do not allow ${policy.permission} in this workspace`, "missing_permission");
  await enforceRateLimit(caller);
  const model = await bodyModel(caller, name);
  requireEndpoint(model, "realtime_transcriptions");
  if (who.model !== undefined && who.model !== model.id) throw new Forbidden(`This client secret is for model '${who.model}'`, "client_secret_model");
  const provider = await providerNamed(model.provider);
  if (!provider.transcribeLive) throw new UnsupportedByProvider(provider.backend, "realtime transcription");
  return {
    ctx: { caller, requestId, route: policy.route },
    model,
    provider: provider as LiveProvider,
    ...(language ? { language } : {}),
    ...(policy.maxSeconds ? { maxSeconds: policy.maxSeconds } : {}),
  };
}
