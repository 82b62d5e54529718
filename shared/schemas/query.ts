import * as z from "zod";

/** A query parameter that may be repeated: always an array after parsing. */
export const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).optional());

/** Query booleans arrive as text. */
export const queryBoolean = (fallback: boolean) => z.stringbool().default(fallback);

/** Query integers arrive as text. */
export const queryInt = () => z.coerce.number<string>().int();
