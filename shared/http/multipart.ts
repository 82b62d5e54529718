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

/** How a form name was used: a text field, a list (`name[]`, or a name the route lists), or a file part. */
type FieldUse = "text" | "list" | "file";

/** The 422 of a form whose field name is used two ways (`x` and `x[]`, a file and a text field). */
const mixedUse = (name: string, first: FieldUse, then: FieldUse) =>
  new Unprocessable([{ loc: ["body", name], msg: `The form field ${JSON.stringify(name)} is sent both as a ${first} and as a ${then}`, type: "value_error" }]);

/**
 * A form under construction: names are data, so it is a Map (a name such as `__proto__` or `constructor`
 * is a field like any other), and a name keeps the one use it was first sent with.
 */
class FormBuilder {
  private readonly values = new Map<string, unknown>();
  private readonly uses = new Map<string, FieldUse>();

  /** Records a use of the name without keeping a value (a streamed file part); throws the 422 on a second kind of use. */
  claim(name: string, use: FieldUse): FieldUse | undefined {
    const first = this.uses.get(name);
    if (first !== undefined && first !== use) throw mixedUse(name, first, use);
    this.uses.set(name, use);
    return first;
  }

  add(name: string, use: FieldUse, value: unknown): void {
    const first = this.claim(name, use);
    const list = use === "list" ? (this.values.get(name) as unknown[] | undefined) : undefined;
    if (list) list.push(value);
    else if (use === "list") this.values.set(name, [value]);
    // A repeated text field keeps its last value (as before); a repeated file part becomes a list the schemas refuse.
    else if (use === "file" && first !== undefined) this.values.set(name, ([] as unknown[]).concat(this.values.get(name), value));
    else this.values.set(name, value);
  }

  /** The form as the schemas read it: an object without a prototype, so no name reaches Object.prototype. */
  build(): Record<string, unknown> {
    const form = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of this.values) form[name] = value;
    return form;
  }
}

/** `name[]` (or `name[key]`) is a list item of `name`, as the SDKs and browsers send lists. */
const LIST_ITEM = /^(.+)\[[^\]]*]$/;

/** Wraps a busboy callback so that what it throws is the form's failure: busboy calls them outside the parse's promise. */
const guardedBy =
  (fail: (error: unknown) => void) =>
  <A extends unknown[]>(callback: (...args: A) => void) =>
  (...args: A) => {
    try {
      callback(...args);
    } catch (error) {
      fail(error);
    }
  };

/**
 * Reads a whole multipart/form-data body into `{ field: string | string[], file: FormFile }`.
 *
 * Our own, on busboy directly, because @middy/http-multipart-body-parser listens for errors on the form
 * but not on each file part: a body cut short inside a file part made that part emit 'error' with no
 * listener, an uncaught exception that ended the process (the local server; a Lambda runtime) instead of
 * refusing one request. Here every stream's error, and anything a callback throws (busboy calls them
 * outside this promise), rejects the one parse.
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
    const form = new FormBuilder();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    const guarded = guardedBy(fail);
    let parser: Busboy;
    try {
      parser = new Busboy({ headers: { "content-type": contentType }, limits });
    } catch (error) {
      return fail(error);
    }
    const pending: Promise<void>[] = [];
    parser.on(
      "file",
      guarded((name: string, stream: BusboyFileStream, filename: string, transferEncoding: string, mimetype: string) => {
        const chunks: Buffer[] = [];
        pending.push(
          new Promise<void>((done) => {
            stream.on("data", (chunk: Buffer) => chunks.push(chunk));
            stream.on("error", (error: Error) => {
              fail(error);
              done();
            });
            stream.on(
              "end",
              guarded(() => {
                try {
                  form.add(name, "file", { filename, mimetype, encoding: transferEncoding, truncated: stream.truncated, content: Buffer.concat(chunks) } satisfies FormFile);
                } finally {
                  done();
                }
              }),
            );
          }),
        );
      }),
    );
    parser.on(
      "field",
      guarded((name: string, value: string) => {
        const item = LIST_ITEM.exec(name);
        if (item) form.add(item[1]!, "list", value);
        else form.add(name, lists.includes(name) ? "list" : "text", value);
      }),
    );
    parser.on("error", fail);
    parser.on("finish", () => void Promise.all(pending).then(guarded(() => failed || resolve(form.build()))));
    try {
      parser.end(Buffer.from(body, encoding));
    } catch (error) {
      fail(error);
    }
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
    } catch (error) {
      // A readable form whose names conflict says which name; anything else busboy could not read.
      if (error instanceof Unprocessable) throw error;
      throw new Error("Invalid or malformed multipart/form-data was provided");
    }
  },
});

/** Routes opt in with `route({ parser: multipartForm })` so that busboy ships only in the bundles that parse forms. */
export const multipartForm: BodyParser = Object.assign(() => multipartFormWithLists([])(), { form: { lists: [] } });

/** A one-file form whose named fields may repeat and arrive as arrays (e.g. the transcription form's `context_bias`). */
export const multipartFormWithLists = (lists: readonly string[]): BodyParser =>
  Object.assign(
    () =>
      parsedBody({
        accepts: /^multipart\/form-data/i,
        parser: multipartParser({ files: 1 }, lists),
        invalid: "value_error",
      }),
    { form: { lists } },
  );

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
): Promise<{ fields: Record<string, unknown>; file: T | undefined }> {
  return new Promise((resolve, reject) => {
    const fields = new FormBuilder();
    let handled: Promise<T> | undefined;
    let current: BusboyFileStream | undefined;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      body.unpipe();
      current?.destroy(error instanceof Error ? error : new Error(String(error)));
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
    const guarded = guardedBy(fail);
    parser.on("file", guarded((name: string, stream: BusboyFileStream, filename: string, _encoding: string, mimetype: string) => {
      // After a failure busboy may still emit parts it had buffered: nothing more is started (and left behind).
      if (handled || failed) return void stream.resume();
      fields.claim(name, "file");
      current = stream;
      // Busboy fails the part when the body ends inside it: the client's malformed form, not onFile's failure.
      let cutShort = false;
      stream.once("error", () => (cutShort = true));
      handled = onFile({ filename, mimetype, content: stream });
      // Its failure is reported through fail (and awaited below); never an unhandled rejection.
      handled.catch((error: Error) => fail(cutShort ? malformed() : error));
    }));
    parser.on("field", guarded((name: string, value: string) => {
      if (failed) return;
      // The Lambda route's reading (parseForm): `name[]` items make a list, which the form's schema refuses.
      const item = LIST_ITEM.exec(name);
      if (item) fields.add(item[1]!, "list", value);
      else fields.add(name, "text", value);
    }));
    parser.on("error", () => fail(malformed()));
    parser.on("finish", guarded(() => {
      if (!handled) return void (failed || resolve({ fields: fields.build(), file: undefined }));
      handled.then((file) => failed || resolve({ fields: fields.build(), file }), () => undefined);
    }));
    // A client that goes away mid-body: the file part fails, so what it started is cancelled.
    body.on("close", () => (body as { complete?: boolean }).complete === false && fail(new ClientClosedRequest()));
    body.on("error", () => fail(new ClientClosedRequest()));
    body.pipe(parser);
  });
}
