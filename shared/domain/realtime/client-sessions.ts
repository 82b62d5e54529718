import { randomBytes } from "node:crypto";
import type { PrincipalType } from "../caller.js";
import { seal, unseal } from "../sealed-tokens.js";

/**
 * Client sessions (`POST /v1/client/sessions`, docs/decisions/0072-realtime-transcription.md): a short-lived
 * credential a backend mints with its API key and hands to a browser, which cannot keep a key nor set an
 * Authorization header on a WebSocket. The secret is self-contained: who minted it, for which model, until when,
 * sealed with the deployment's URL signing secret (rotations apply to it as to signed URLs), so minting writes
 * nothing and the socket checks it without a lookup. What it may do is narrow: open realtime transcription sockets
 * for its one model, as its key's principal still may, until it expires. It opens no REST route (the authorizer
 * knows only API keys).
 */
export interface ClientSessionGrant {
  /** A random id: what logs and the audit event name the session by (never the secret). */
  id: string;
  organization: string;
  workspace: string;
  principal: string;
  principalType: PrincipalType;
  /** The API key that minted it: the socket refuses the session once that key is revoked or expired. */
  keyId: string;
  /** The catalog id of the one model it may transcribe with. */
  model: string;
  /** Unix seconds from which no socket may be opened with it (an open socket runs on, up to its own limit). */
  expiresAt: number;
}

export const CLIENT_SECRET_PREFIX = "rt_";

const DOMAIN = "client-session.v1";

export const newClientSessionId = (): string => randomBytes(8).toString("hex");

export function signClientSession(secret: Buffer, grant: ClientSessionGrant): string {
  const { id, organization, workspace, principal, principalType, keyId, model, expiresAt } = grant;
  return `${CLIENT_SECRET_PREFIX}${seal(secret, DOMAIN, { i: id, o: organization, w: workspace, p: principal, t: principalType, k: keyId, m: model, e: expiresAt })}`;
}

export type ClientSessionCheck = { ok: true; grant: ClientSessionGrant } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/** Checks a secret against the current signing secret and, during a rotation's overlap, the previous one. */
export function verifyClientSession(secrets: readonly Buffer[], token: string, now: number): ClientSessionCheck {
  if (!token.startsWith(CLIENT_SECRET_PREFIX)) return { ok: false, reason: "malformed" };
  const opened = unseal(secrets, DOMAIN, token.slice(CLIENT_SECRET_PREFIX.length));
  if (!opened.ok) return opened;
  const { i, o, w, p, t, k, m, e } = opened.fields;
  const strings = [i, o, w, p, k, m].every((value) => typeof value === "string");
  if (!strings || (t !== "user" && t !== "service_account") || typeof e !== "number") return { ok: false, reason: "malformed" };
  if (e <= now) return { ok: false, reason: "expired" };
  return { ok: true, grant: { id: i as string, organization: o as string, workspace: w as string, principal: p as string, principalType: t, keyId: k as string, model: m as string, expiresAt: e } };
}

/** Whether a credential is a client secret rather than an API key (API keys never take this prefix: `pak_`). */
export const isClientSecret = (credential: string): boolean => credential.startsWith(CLIENT_SECRET_PREFIX);
