import type { APIGatewayProxyEvent } from "aws-lambda";

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
