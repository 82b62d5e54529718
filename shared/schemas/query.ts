import * as z from "zod";

/** A query parameter that may be repeated: always an array after parsing. */
export const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).optional());

/** Query booleans arrive as text. */
export const queryBoolean = (fallback: boolean) => z.stringbool().default(fallback);

/** Query integers arrive as text. */
export const queryInt = () => z.coerce.number<string>().int();

/** `metadata` arrives as a JSON object in the query string (the SDK encodes it so). */
export const MetadataQuery = z
  .string()
  .transform((text, ctx) => {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: "custom", message: "metadata must be a JSON object" });
    return z.NEVER;
  })
  .optional();
