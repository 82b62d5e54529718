import { parseArgs } from "node:util";

/**
 * The deployment principals CLI's logic (docs/workflows.md, "Deployments"): hardening through the API's
 * extension route `POST /v1/workflows/deployments/{name}/principals` and `POST …/{deployment_id}/unharden`,
 * as a workspace admin's key. Returns the exit code; writes answers to `out`, problems to `err`.
 */
export const PRINCIPALS_USAGE = `Usage:
  npm run principals -- add      --deployment NAME --principal ID[,ID…] [--url URL] [--key KEY]
  npm run principals -- remove   --deployment NAME --principal ID[,ID…] [--url URL] [--key KEY]
  npm run principals -- unharden --deployment NAME                      [--url URL] [--key KEY]

A hardened deployment (one with authorized principals) takes worker registers, polls and task calls from
those principals only: API key ids, or service account ids for service-account keys. The key used here must
be a workspace admin's (service-accounts:manage). URL and key default to PLATFORM_URL and PLATFORM_API_KEY,
else to the stack npm start runs.`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** The API's address and key from the flags (and their defaults). */
  target: (given: { url?: string; key?: string }) => { url: string; key: string };
}

export async function principalsCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { deployment: { type: "string" }, principal: { type: "string" }, url: { type: "string" }, key: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n${PRINCIPALS_USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [command] = positionals;
  if (values.help) {
    io.out(PRINCIPALS_USAGE);
    return 0;
  }
  if (!command || !["add", "remove", "unharden"].includes(command) || !values.deployment) {
    io.err(PRINCIPALS_USAGE);
    return 2;
  }
  const principals = values.principal?.split(",").map((p) => p.trim()).filter(Boolean) ?? [];
  if ((command === "add" || command === "remove") && !principals.length) {
    io.err(`${command} needs --principal ID[,ID…]\n${PRINCIPALS_USAGE}`);
    return 2;
  }
  const { url, key } = io.target({ url: values.url, key: values.key });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url.replace(/\/$/, "")}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  };
  const name = encodeURIComponent(values.deployment);
  // Unharden takes the deployment's id (as the spec has it): read from its detail first.
  const answer =
    command === "unharden"
      ? await call("GET", `/v1/workflows/deployments/${name}`).then(async (detail) =>
          detail.status === 200 ? call("POST", `/v1/workflows/deployments/${encodeURIComponent(String(detail.body.id))}/unharden`) : detail,
        )
      : await call("POST", `/v1/workflows/deployments/${name}/principals`, { [command]: principals });
  if (answer.status !== 200) {
    const detail = answer.body.detail ?? answer.body.message ?? answer.body;
    io.err(`${answer.status}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    return 1;
  }
  const set: string[] = answer.body.authorized_principals ?? [];
  io.out(`Deployment ${values.deployment}: ${answer.body.is_hardened ? `hardened, ${set.length} principal(s)` : "not hardened"}`);
  for (const principal of set) io.out(`  ${principal}`);
  return 0;
}
