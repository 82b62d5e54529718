import type * as z from "zod";
import { InvalidPageToken } from "../domain/errors.js";

/**
 * The one codec of every cursor-paged list: a token is base64url JSON of where a page ended, checked
 * against the list's own schema when it comes back. Tokens are opaque to clients; anything that is not
 * a token this list issued (garbage, another list's, another workspace's, a tampered one) decodes to
 * undefined, and `readCursor` refuses it (422 on the token's query parameter) before any read.
 */
export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor<S extends z.ZodType>(token: string, schema: S): z.output<S> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The position a token names, or the one refusal every cursor-paged list gives for a token it did not issue. */
export function readCursor<S extends z.ZodType>(token: string, schema: S, param: string): z.output<S> {
  const position = decodeCursor(token, schema);
  if (position === undefined) throw new InvalidPageToken(param);
  return position;
}
