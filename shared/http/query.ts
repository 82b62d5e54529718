import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";

/**
 * The query string as one object: a parameter given once is a string, given several times an array
 * (API Gateway REST delivers both views; the multi-value one keeps repeats such as `status=A&status=B`).
 */
export function queryObject(event: APIGatewayProxyEvent): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const multi = event.multiValueQueryStringParameters ?? {};
  for (const [key, values] of Object.entries(multi)) {
    if (!values?.length) continue;
    out[key] = values.length === 1 ? values[0]! : values;
  }
  for (const [key, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && !(key in out)) out[key] = value;
  }
  return out;
}

/** A query parameter that may be repeated: always an array after parsing. */
export const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).optional());

/** Query booleans arrive as text. */
export const queryBoolean = (fallback: boolean) => z.stringbool().default(fallback);

/** Query integers arrive as text. */
export const queryInt = () => z.coerce.number<string>().int();
