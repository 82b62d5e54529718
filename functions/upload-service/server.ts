import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../../shared/domain/caller.js";
import { Unprocessable, UnsupportedMediaType } from "../../shared/domain/errors.js";
import { toFileOut } from "../../shared/domain/file-rules.js";
import { validated } from "../../shared/domain/validation.js";
import { corsHeaders } from "../../shared/http/cors.js";
import { renderError } from "../../shared/http/errors.js";
import { gatewayAnswers, type GatewayAnswer } from "../../shared/http/gateway.js";
import { MULTIPART_BOUNDARY, streamForm } from "../../shared/http/multipart.js";
import { routeKey } from "../../shared/http/policy.js";
import { admitted } from "../../shared/http/route.js";
import { logger } from "../../shared/observability/logger.js";
import { FileOut, MAX_FILE_BYTES, StreamedUploadForm } from "../../shared/schemas/file.js";
import { commitFile, discardFile, fileTooLarge, stageFile } from "../../shared/services/files/streamed-upload.js";
import { enforceRateLimit } from "../../shared/services/identity/rate-limits.js";
import { callerOf } from "../auth/authorizer.js";
import { rowByKey } from "../routes.js";

/** The one route the upload service serves; its row's policy (auth, permission) is the Lambda route's. */
export const UPLOAD_ROUTE = rowByKey("POST /v1/files")!;
export const UPLOAD_PATH = UPLOAD_ROUTE.path;
/** What the load balancer's health check asks for (the service's own; CloudFront never sends it here). */
export const HEALTH_PATH = "/health";

/** Room for the multipart envelope and the text fields around a file of the largest allowed size. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
/** How long a refused client may keep sending before its connection is cut. */
const DRAIN_MS = 2000;

export interface UploadServiceOptions {
  /** The largest file taken; the spec's 512 MB unless a test asks for less. */
  maxBytes?: number;
}

/**
 * The streaming upload service (docs/decisions/0033-uploads-through-a-streaming-service.md): `POST /v1/files`
 * as the Lambda route answers it, for files of any allowed size. The key is checked by the authorizer's
 * logic and the row's permission before a byte of the body is read; the file part then streams into S3
 * (one part in memory), the form's fields are validated as the route's schema does, and the same File
 * record is written. Any refusal or failure leaves no object, no multipart upload and no record.
 *
 * The same function serves in the container (functions/upload-service/main.ts) and in `npm start`
 * (infra/local/server.ts), so both take the same sizes with the same limits.
 */
export function uploadService(options: UploadServiceOptions = {}) {
  const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
  return async function serveUpload(req: IncomingMessage, res: ServerResponse, requestId: string = randomUUID()): Promise<void> {
    const started = Date.now();
    let caller: Caller | undefined;
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      // A refusal before the body was read: the connection goes once the answer is out, so it is not read in vain.
      if (!req.complete) closeAfter(req, res);
      res.writeHead(status, { "content-type": "application/json", ...headers, ...corsHeaders(req.headers), "x-request-id": requestId });
      res.end(JSON.stringify(body));
      logger.info("upload answered", { requestId, route: routeKey(UPLOAD_ROUTE), status, latencyMs: Date.now() - started, workspace: caller?.workspace });
    };
    const gateway = (answer: GatewayAnswer) => reply(answer.status, answer.body);
    try {
      const header = (name: string) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      // API Gateway asks the authorizer only when the Authorization header (its identity source) is there.
      if (header("authorization") === undefined) return gateway(gatewayAnswers.UNAUTHORIZED);
      caller = await callerOf(header);
      if (!caller) return gateway(gatewayAnswers.UNAUTHORIZED);
      admitted(UPLOAD_ROUTE, caller);
      await enforceRateLimit(caller);
      if (Number(header("content-length") ?? 0) > maxBytes + FORM_OVERHEAD_BYTES) throw fileTooLarge(maxBytes);
      const contentType = header("content-type") ?? "";
      if (!/^multipart\/form-data/i.test(contentType)) throw new UnsupportedMediaType();
      if (!MULTIPART_BOUNDARY.test(contentType)) throw malformedType();
      const who = caller;
      const { fields, file: staged } = await streamForm(
        req,
        contentType,
        (part) => stageFile(who, { filename: part.filename, mimetype: part.mimetype, content: part.content }, maxBytes),
        discardFile,
      );
      let form: StreamedUploadForm;
      try {
        form = validated(StreamedUploadForm, { ...fields, file: staged && { filename: staged.filename, mimetype: staged.mimetype ?? undefined } }, "body");
      } catch (error) {
        if (staged) await discardFile(staged);
        throw error;
      }
      const file = await commitFile(caller, staged!, form);
      reply(200, FileOut.parse(toFileOut(file)));
    } catch (error) {
      const wire = renderError(error, UPLOAD_ROUTE.errors);
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
