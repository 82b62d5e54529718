import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../../shared/domain/caller.js";
import { Unprocessable, UnsupportedMediaType } from "../../shared/domain/errors.js";
import { toFileOut } from "../../shared/domain/file-rules.js";
import { validated } from "../../shared/domain/validation.js";
import { corsHeaders } from "../../shared/http/cors.js";
import { renderError } from "../../shared/http/errors.js";
import { gatewayAnswers, type GatewayAnswer } from "../../shared/http/gateway.js";
import { MULTIPART_BOUNDARY, streamForm, type StreamedPart } from "../../shared/http/multipart.js";
import { routeKey } from "../../shared/http/policy.js";
import { admitted } from "../../shared/http/route.js";
import { logger } from "../../shared/observability/logger.js";
import { FileOut, MAX_FILE_BYTES, StreamedUploadForm } from "../../shared/schemas/file.js";
import { LibraryParams } from "../../shared/schemas/library.js";
import { DocumentOut, MAX_DOCUMENT_BYTES, StreamedDocumentUploadForm } from "../../shared/schemas/library-document.js";
import { commitFile, discardFile, fileTooLarge, stageFile, type StagedFile } from "../../shared/services/files/streamed-upload.js";
import { discardStaged, documentTooLarge, stageDocument, uploadStaged, uploadTarget, type StagedDocument } from "../../shared/services/libraries/documents.js";
import { enforceRateLimit } from "../../shared/services/identity/rate-limits.js";
import { callerOf } from "../auth/authorizer.js";
import { rowByKey, type RouteRow } from "../routes.js";
import { headerReader, UPLOAD_ROUTE_KEYS, uploadRouteOf, type UploadRouteKey } from "./routes.js";

/** The routes the upload service serves, each with its row: the policy (auth, permission, errors) is the Lambda route's. */
export const UPLOAD_ROUTES = Object.fromEntries(UPLOAD_ROUTE_KEYS.map((key) => [key, rowByKey(key)!])) as Record<UploadRouteKey, RouteRow>;
export const UPLOAD_ROUTE = UPLOAD_ROUTES["POST /v1/files"];
export const UPLOAD_PATH = UPLOAD_ROUTE.path;
export const DOCUMENT_UPLOAD_ROUTE = UPLOAD_ROUTES["POST /v1/libraries/{library_id}/documents"];
/** What the load balancer's health check asks for (the service's own; CloudFront never sends it here). */
export const HEALTH_PATH = "/health";

/** Room for the multipart envelope and the text fields around a file of the largest allowed size. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
/** How long a refused client may keep sending before its connection is cut. */
const DRAIN_MS = 2000;

export interface UploadServiceOptions {
  /** The largest file taken; the spec's 512 MB unless a test asks for less. */
  maxBytes?: number;
  /** The largest library document taken; MAX_DOCUMENT_BYTES (100 MiB) unless a test asks for less. */
  maxDocumentBytes?: number;
}

/** What one route does once the caller is admitted: its checks before the body, the file part's staging, the answer. */
interface UploadHandling<S> {
  limit: number;
  tooLarge: () => Error;
  /** Runs before a byte of the body is read: a refusal here uploads nothing. */
  prepare: (caller: Caller, params: Record<string, string>) => Promise<(part: StreamedPart) => Promise<S>>;
  discard: (staged: S) => Promise<void>;
  /** Validates the form and answers; owns the staged bytes (removes them on a refusal). */
  finish: (caller: Caller, fields: Record<string, unknown>, staged: S | undefined) => Promise<{ status: number; body: unknown }>;
}

function filesUpload(maxBytes: number): UploadHandling<StagedFile> {
  return {
    limit: maxBytes,
    tooLarge: () => fileTooLarge(maxBytes),
    prepare: async (caller) => (part) => stageFile(caller, { filename: part.filename, mimetype: part.mimetype, content: part.content }, maxBytes),
    discard: discardFile,
    finish: async (caller, fields, staged) => {
      let form: StreamedUploadForm;
      try {
        form = validated(StreamedUploadForm, { ...fields, file: staged && { filename: staged.filename, mimetype: staged.mimetype ?? undefined } }, "body");
      } catch (error) {
        if (staged) await discardFile(staged);
        throw error;
      }
      const file = await commitFile(caller, staged!, form);
      return { status: 200, body: FileOut.parse(toFileOut(file)) };
    },
  };
}

/**
 * POST /v1/libraries/{library_id}/documents: the library and the caller's Editor level are checked when the file part
 * begins, before a byte of it is read or stored (a form without one is the Lambda route's 422).
 */
function documentsUpload(maxBytes: number): UploadHandling<StagedDocument> {
  return {
    limit: maxBytes,
    tooLarge: () => documentTooLarge(maxBytes),
    prepare: async (caller, params) => {
      const { library_id } = validated(LibraryParams, params, "path");
      return async (part) => stageDocument(await uploadTarget(caller, library_id), { filename: part.filename, content: part.content }, maxBytes);
    },
    discard: discardStaged,
    finish: async (caller, fields, staged) => {
      let form: StreamedDocumentUploadForm;
      try {
        form = validated(StreamedDocumentUploadForm, { ...fields, file: staged && { filename: staged.filename } }, "body");
      } catch (error) {
        if (staged) await discardStaged(staged);
        throw error;
      }
      const { created, document } = await uploadStaged(caller, staged!, form.file.filename);
      return { status: created ? 201 : 200, body: DocumentOut.parse(document) };
    },
  };
}

/**
 * The streaming upload service (docs/decisions/0033-uploads-through-a-streaming-service.md): `POST /v1/files` and
 * `POST /v1/libraries/{library_id}/documents` as their Lambda routes answer them, for files of any allowed size. The
 * key is checked by the authorizer's logic and the row's permission (and, for a document, the caller's level on the
 * library) before a byte of the body is read; the file part then streams into S3 (one part in memory), the form's
 * fields are validated as the route's schema does, and the same record is written. Any refusal or failure leaves no
 * object, no multipart upload and no record.
 *
 * The same function serves in the container (functions/upload-service/main.ts) and in `npm start`
 * (infra/local/server.ts), so both take the same sizes with the same limits.
 */
export function uploadService(options: UploadServiceOptions = {}) {
  // Each route's staged value only passes between its own handling's functions, hence no common type for it here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const handlings: Record<UploadRouteKey, UploadHandling<any>> = {
    "POST /v1/files": filesUpload(options.maxBytes ?? MAX_FILE_BYTES),
    "POST /v1/libraries/{library_id}/documents": documentsUpload(options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES),
  };
  return async function serveUpload(req: IncomingMessage, res: ServerResponse, requestId: string = randomUUID()): Promise<void> {
    const started = Date.now();
    let caller: Caller | undefined;
    const found = uploadRouteOf(req.method ?? "GET", (req.url ?? "/").split("?")[0]!);
    const row = found ? UPLOAD_ROUTES[found.key] : UPLOAD_ROUTE;
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      // A refusal before the body was read: the connection goes once the answer is out, so it is not read in vain.
      if (!req.complete) closeAfter(req, res);
      res.writeHead(status, { "content-type": "application/json", ...headers, ...corsHeaders(req.headers), "x-request-id": requestId });
      res.end(JSON.stringify(body));
      logger.info("upload answered", { requestId, route: routeKey(row), status, latencyMs: Date.now() - started, workspace: caller?.workspace });
    };
    const gateway = (answer: GatewayAnswer) => reply(answer.status, answer.body);
    try {
      if (!found) return gateway(gatewayAnswers.MISSING_AUTHENTICATION_TOKEN);
      const handling = handlings[found.key];
      const header = headerReader(req);
      // API Gateway asks the authorizer only when the Authorization header (its identity source) is there.
      if (header("authorization") === undefined) return gateway(gatewayAnswers.UNAUTHORIZED);
      caller = await callerOf(header);
      if (!caller) return gateway(gatewayAnswers.UNAUTHORIZED);
      admitted(row, caller);
      await enforceRateLimit(caller);
      const who = caller;
      const onFile = await handling.prepare(who, found.params);
      if (Number(header("content-length") ?? 0) > handling.limit + FORM_OVERHEAD_BYTES) throw handling.tooLarge();
      const contentType = header("content-type") ?? "";
      if (!/^multipart\/form-data/i.test(contentType)) throw new UnsupportedMediaType();
      if (!MULTIPART_BOUNDARY.test(contentType)) throw malformedType();
      const { fields, file: staged } = await streamForm(req, contentType, onFile, handling.discard);
      const answer = await handling.finish(who, fields, staged);
      reply(answer.status, answer.body);
    } catch (error) {
      const wire = renderError(error, row.errors);
      if (wire.status >= 500) logger.error("upload failed", { requestId, error: error as Error });
      if (res.headersSent || res.destroyed) return void res.end();
      reply(wire.status, wire.body, wire.headers);
    }
  };
}

/** What the Lambda route's parser says of a multipart type without a usable boundary (shared/http/body.ts, multipart.ts). */
const malformedType = () => new Unprocessable([{ loc: ["body"], msg: "A multipart/form-data body needs a boundary of 1 to 70 characters", type: "value_error" }]);

/** Answers, then drops the connection: the unread rest of a refused body is discarded for a moment, then cut. */
function closeAfter(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("connection", "close");
  res.once("finish", () => {
    req.unpipe();
    req.resume();
    setTimeout(() => req.destroy(), DRAIN_MS).unref();
  });
}
