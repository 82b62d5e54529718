/**
 * Client sessions: minting a realtime secret for the calling key, and trading one back for the caller it stands for
 * when a socket opens (shared/domain/realtime/client-sessions.ts says what the secret is and may do).
 */
import type { Caller } from "../../domain/caller.js";
import { newClientSessionId, signClientSession, verifyClientSession, type ClientSessionGrant } from "../../domain/realtime/client-sessions.js";
import { requireEndpoint } from "../../domain/models.js";
import { logger } from "../../observability/logger.js";
import type { ClientSessionOut, CreateClientSessionBody } from "../../schemas/realtime.js";
import { secretStore } from "../../store/tenancy.js";
import { recordAudit } from "../audit/record.js";
import { resolvePrincipal } from "../identity/callers.js";
import { bodyModel } from "../models/catalog.js";

export async function createClientSession(caller: Caller, body: CreateClientSessionBody, now = Date.now()): Promise<ClientSessionOut> {
  // The model is checked now (it exists, the key may call it, it serves realtime) so a bad one fails here, not in a browser.
  const model = await bodyModel(caller, body.model);
  requireEndpoint(model, "realtime_transcriptions");
  const grant: ClientSessionGrant = {
    id: newClientSessionId(),
    organization: caller.organization,
    workspace: caller.workspace,
    principal: caller.principal,
    principalType: caller.principalType,
    keyId: caller.keyId,
    model: model.id,
    expiresAt: Math.floor(now / 1000) + body.ttl_seconds,
  };
  const value = signClientSession(await secretStore.urlSigningSecret(), grant);
  const expiresAt = new Date(grant.expiresAt * 1000).toISOString();
  await recordAudit({
    organization: caller.organization,
    workspace: caller.workspace,
    operation: "client-session.create",
    targets: [{ type: "client_session", id: grant.id }],
    after: { purpose: body.purpose, model: model.id, expires_at: expiresAt },
  });
  return { object: "client.session", purpose: "realtime", expires_at: expiresAt, client_secret: { value, expires_at: expiresAt }, model: model.id, id: grant.id };
}

/**
 * The caller a client secret stands for now, with the model it is for; undefined when it must be refused: not ours,
 * expired, or its key's principal has lost the rights a key of theirs would have (the key revoked or expired, the
 * user no longer a member, the workspace archived). The key's limits come with it, as with the key itself.
 */
export async function clientSessionCaller(secret: string, now = Date.now()): Promise<{ caller: Caller; grant: ClientSessionGrant } | undefined> {
  const { current, previous } = await secretStore.urlSigningSecrets();
  const check = verifyClientSession(previous ? [current, previous] : [current], secret, Math.floor(now / 1000));
  if (!check.ok) {
    logger.info("client secret refused", { reason: check.reason });
    return undefined;
  }
  const caller = await resolvePrincipal(check.grant, { liveKey: true });
  if (!caller) {
    logger.info("client secret refused", { reason: "principal", session: check.grant.id });
    return undefined;
  }
  return { caller, grant: check.grant };
}
