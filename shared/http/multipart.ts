import type { Readable } from "node:stream";
import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import type middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { ClientClosedRequest, Unprocessable } from "../domain/errors.js";
import { parsedBody, type BodyParser } from "./body.js";

/** A file part as the form schemas see it (the shape middy's multipart parser gave). */
export interface FormFile {
  filename: string;
  mimetype: string;
  encoding: string;
  truncated: boolean;
  content: Buffer;
}

export const MULTIPART_BOUNDARY = /^multipart\/form-data;\s*boundary=("?)[^";]{1,70}\1(\s*;\s*charset=[\w-]+)?$/i;

/**
 * Reads a whole multipart/form-data body into `{ field: string | string[], file: FormFile }`.
 *
 * Our own, on busboy directly, because @middy/http-multipart-body-parser listens for errors on the form
 * but not on each file part: a body cut short inside a file part made that part emit 'error' with no
 * listener, an uncaught exception that ended the process (the local server; a Lambda runtime) instead of
 * refusing one request. Here every stream's error rejects the one parse.
 */
export function parseForm(
  body: string,
  encoding: BufferEncoding,
  contentType: string,
  limits: { files: number },
  /** Fields that may repeat (`name=a&name=b`, as the SDKs send lists): collected into an array. */
  lists: readonly string[] = [],
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const form: Record<string, unknown> = {};
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    let parser: Busboy;
    try {
      parser = new Busboy({ headers: { "content-type": contentType }, limits });
    } catch (error) {
      return fail(error as Error);
    }
    const pending: Promise<void>[] = [];
    parser.on("file", (name: string, stream: BusboyFileStream, filename: string, transferEncoding: string, mimetype: string) => {
      const chunks: Buffer[] = [];
      pending.push(
        new Promise<void>((done) => {
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("error", (error: Error) => {
            fail(error);
            done();
          });
          stream.on("end", () => {
            const file: FormFile = { filename, mimetype, encoding: transferEncoding, truncated: stream.truncated, content: Buffer.concat(chunks) };
            form[name] = name in form ? ([] as unknown[]).concat(file, form[name]) : file;
            done();
          });
        }),
      );
    });
    parser.on("field", (name: string, value: string) => {
      const listed = /^(.+)\[(.*)]$/.exec(name);
      if (!listed && lists.includes(name)) ((form[name] ??= []) as string[]).push(value);
      else if (!listed) form[name] = value;
      else ((form[listed[1]!] ??= []) as string[]).push(value);
    });
    parser.on("error", (error: Error) => fail(error));
    parser.on("finish", () => void Promise.all(pending).then(() => failed || resolve(form)));
    parser.end(Buffer.from(body, encoding));
  });
}

export const multipartParser = (limits: { files: number }, lists: readonly string[] = []): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: async (request) => {
    const contentType = request.event.headers?.["content-type"] ?? request.event.headers?.["Content-Type"] ?? "";
    if (!MULTIPART_BOUNDARY.test(contentType)) throw new Error("A multipart/form-data body needs a boundary of 1 to 70 characters");
    if (typeof request.event.body !== "string") throw new Error("Invalid or malformed multipart/form-data was provided");
    try {
      const encoding = request.event.isBase64Encoded ? "base64" : "utf8";
      (request.event as { body: unknown }).body = await parseForm(request.event.body, encoding, contentType, limits, lists);
    } catch {
      throw new Error("Invalid or malformed multipart/form-data was provided");
    }
  },
});

/** Routes opt in with `route({ parser: multipartForm })` so that busboy ships only in the bundles that parse forms. */
export const multipartForm: BodyParser = () => multipartFormWithLists([])();

/** A one-file form whose named fields may repeat and arrive as arrays (e.g. the transcription form's `context_bias`). */
export const multipartFormWithLists =
  (lists: readonly string[]): BodyParser =>
  () =>
    parsedBody({
      accepts: /^multipart\/form-data/i,
      parser: multipartParser({ files: 1 }, lists),
      invalid: "value_error",
    });

/** A file part of a streamed form: its name and declared type, its bytes as they arrive. */
export interface StreamedPart {
  filename: string;
  mimetype: string;
  content: AsyncIterable<Uint8Array>;
}

/** The 422 of a form that cannot be read, as the Lambda route's parser answers it (shared/http/body.ts). */
const malformed = () => new Unprocessable([{ loc: ["body"], msg: "Invalid or malformed multipart/form-data was provided", type: "value_error" }]);

/**
 * Reads a multipart/form-data body as it arrives, without holding its file: the first file part is handed
 * to `onFile` as a stream (its bytes flow as `onFile` consumes them, so a slow consumer slows the
 * client), later file parts are skipped, text fields are collected. Resolves with the fields and what
 * `onFile` produced once the body ended and `onFile` finished; rejects with a 422 if the body is malformed,
 * a 499 if it was cut short (`body` closed early), or with `onFile`'s error. When it rejects after `onFile`
 * succeeded, `undo` gets that result first (the caller's chance to remove what it stored).
 */
export function streamForm<T>(
  body: Readable,
  contentType: string,
  onFile: (part: StreamedPart) => Promise<T>,
  undo: (result: T) => Promise<void>,
): Promise<{ fields: Record<string, string>; file: T | undefined }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let handled: Promise<T> | undefined;
    let current: BusboyFileStream | undefined;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      body.unpipe();
      current?.destroy(error);
      // Whatever onFile made is undone before the caller hears of the failure.
      if (!handled) return reject(error);
      handled.then(undo, () => undefined).then(
        () => reject(error),
        () => reject(error),
      );
    };
    let parser: Busboy;
    try {
      parser = new Busboy({ headers: { "content-type": contentType }, limits: { files: 1, fields: 16, fieldSize: 64 * 1024 } });
    } catch {
      return reject(malformed());
    }
    parser.on("file", (_name: string, stream: BusboyFileStream, filename: string, _encoding: string, mimetype: string) => {
      if (handled) return void stream.resume();
      current = stream;
      // Busboy fails the part when the body ends inside it: the client's malformed form, not onFile's failure.
      let cutShort = false;
      stream.once("error", () => (cutShort = true));
      handled = onFile({ filename, mimetype, content: stream });
      // Its failure is reported through fail (and awaited below); never an unhandled rejection.
      handled.catch((error: Error) => fail(cutShort ? malformed() : error));
    });
    parser.on("field", (name: string, value: string) => {
      if (!/\[.*]$/.test(name)) fields[name] = value;
    });
    parser.on("error", () => fail(malformed()));
    parser.on("finish", () => {
      if (!handled) return failed || resolve({ fields, file: undefined });
      handled.then((file) => failed || resolve({ fields, file }), () => undefined);
    });
    // A client that goes away mid-body: the file part fails, so what it started is cancelled.
    body.on("close", () => (body as { complete?: boolean }).complete === false && fail(new ClientClosedRequest()));
    body.on("error", () => fail(new ClientClosedRequest()));
    body.pipe(parser);
  });
}
