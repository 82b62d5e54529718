import type * as z from "zod";

/**
 * The one codec of every cursor-paged list: a token is base64url JSON of where a page ended, checked
 * against the list's own schema when it comes back. Tokens are opaque to clients; anything that is not
 * a token this list issued (garbage, another list's, another workspace's, a tampered one) decodes to
 * undefined, and the list refuses it before any read.
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
