import * as z from "zod";
import { InvalidPageToken } from "../domain/errors.js";
import type { SortDirection, SortField } from "../schemas/registry.js";
import { encodeCursor, readCursor } from "./cursor.js";

/** Where a page ended: the last head returned, by its sort key and its key in the sort's index. */
export interface PageCursor {
  sk: string;
  key: string;
}

export interface Sort {
  field: SortField;
  direction: SortDirection;
}

const TokenBody = z.strictObject({
  v: z.literal(1),
  f: z.enum(["created_at", "last_modified_at", "name", "title"]),
  d: z.enum(["asc", "desc"]),
  sk: z.string().startsWith("HEAD#").max(200),
  k: z.string().min(1).max(1100),
});

/**
 * The position and the order it belongs to. The partition (kind and workspace) is never in it; it
 * comes from the caller, so a token cannot reach another workspace.
 */
export function encodePageToken(sort: Sort, cursor: PageCursor): string {
  return encodeCursor({ v: 1, f: sort.field, d: sort.direction, sk: cursor.sk, k: cursor.key });
}

export function decodePageToken(token: string, sort: Sort): PageCursor {
  const parsed = readCursor(token, TokenBody, "pageToken");
  if (parsed.f !== sort.field || parsed.d !== sort.direction) throw new InvalidPageToken("pageToken", "it belongs to another sort order");
  return { sk: parsed.sk, key: parsed.k };
}
