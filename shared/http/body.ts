import type middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { Unprocessable, UnsupportedMediaType } from "../domain/errors.js";

export type BodyParser = (() => middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>) & {
  /** A body of its media type that it cannot read (a 422), for the contract ring; multipart parsers leave it out. */
  unreadable?: { contentType: string; body: string };
  /** The body's media type in the OpenAPI document, when not `multipart/form-data`. */
  media?: string;
  /** A multipart form parser, and the names it collects into lists: the fuzz ring reads forms as the route does. */
  form?: { lists: readonly string[] };
  /** An OTLP export parser and its signal: the fuzz ring sends it export requests. */
  otlp?: "traces" | "logs";
};

export interface BodyKind {
  accepts: RegExp;
  parser: middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;
  /** The 422 issue type for a body that claims the media type but cannot be read as it. */
  invalid: string;
}

/**
 * A middy body parser behind our own media-type check: a body of another declared type is a 415, and
 * whatever the parser then cannot read is the client's malformed body (422), never a server error.
 */
export function parsedBody(kind: BodyKind): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (request) => {
      const contentType = request.event.headers?.["content-type"] ?? request.event.headers?.["Content-Type"] ?? "";
      if (!kind.accepts.test(contentType)) throw new UnsupportedMediaType();
      try {
        await kind.parser.before!(request);
      } catch (error) {
        // A parser that read the body and names what is wrong in it (a form field sent two ways) says so itself.
        if (error instanceof Unprocessable) throw error;
        throw new Unprocessable([{ loc: ["body"], msg: (error as Error).message, type: kind.invalid }]);
      }
    },
  };
}

export const jsonBody: BodyParser = () =>
  parsedBody({
    accepts: /^application\/(.+\+)?json($|;.+)/i,
    // The JS takes disableContentTypeCheck; its typings do not list it.
    parser: httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]),
    invalid: "json_invalid",
  });

/** JSON when a body is sent, and no body at all is fine too (an optional request body, e.g. a schedule pause's `{note}`). */
export const optionalJsonBody: BodyParser = () => {
  const json = jsonBody();
  return {
    before: async (request) => {
      const body = request.event.body;
      if (body === null || body === undefined || body === "") return;
      await json.before!(request);
    },
  };
};

/** An HTML form's body (`application/x-www-form-urlencoded`): the platform's own pages post these; a repeated field keeps its last value. */
export const formBody: BodyParser = Object.assign(() =>
  parsedBody({
    accepts: /^application\/x-www-form-urlencoded($|;.+)/i,
    parser: {
      before: (request) => {
        const raw = request.event.body ?? "";
        const text = request.event.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
        // fromEntries defines own properties: a field named __proto__ is a field, not a prototype.
        (request.event as { body: unknown }).body = Object.fromEntries(new URLSearchParams(text));
      },
    },
    invalid: "form_invalid",
  }), {
  // Any bytes read as a form: what a form's schema refuses is an empty one.
  unreadable: { contentType: "application/x-www-form-urlencoded", body: "" },
  media: "application/x-www-form-urlencoded",
});
