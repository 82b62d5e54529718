import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import type middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { parsedBody, type BodyParser } from "./body.js";

/** A file part as the form schemas see it (the shape middy's multipart parser gave). */
export interface FormFile {
  filename: string;
  mimetype: string;
  encoding: string;
  truncated: boolean;
  content: Buffer;
}

const BOUNDARY = /^multipart\/form-data;\s*boundary=("?)[^";]{1,70}\1(\s*;\s*charset=[\w-]+)?$/i;

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
    if (!BOUNDARY.test(contentType)) throw new Error("A multipart/form-data body needs a boundary of 1 to 70 characters");
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
