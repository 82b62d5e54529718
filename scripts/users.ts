/**
 * Users and their keys, against the tables of a deployment or of the running local stack:
 *
 *   npm run users -- create --email E [--first-name F] [--last-name L] [--roles member|billing_manager|organization_admin,…] [--org ORG_ID]
 *   npm run users -- list [--org ORG_ID]
 *   npm run users -- add --user USER_ID --workspace WORKSPACE_ID [--roles user,workspace_admin,…] [--org ORG_ID]
 *   npm run users -- key --user USER_ID --workspace WORKSPACE_ID [--name NAME] [--org ORG_ID]
 *
 * `--org` may be left out when the tables hold one organization. Real tables: set TABLE_TENANCY (the
 * DataStack output) and the usual AWS credentials and region. Local: with TABLE_TENANCY unset, it uses the
 * stack `npm start` is running (PLATFORM_DATA_DIR/local-stack.json).
 */
import { printTable } from "./cli-output.js";
import { cliArgs, fail, organizationOf, useTablesOrLocalStack } from "./cli-target.js";

const USAGE = `Usage:
  npm run users -- create --email E [--first-name F] [--last-name L] [--roles member|billing_manager|organization_admin,...] [--org ORG_ID]
  npm run users -- list [--org ORG_ID]
  npm run users -- add --user USER_ID --workspace WORKSPACE_ID [--roles user,workspace_admin,...] [--org ORG_ID]
  npm run users -- key --user USER_ID --workspace WORKSPACE_ID [--name NAME] [--org ORG_ID]\n\nAgainst a deployment: set TABLE_TENANCY, TABLE_AUDIT and AWS credentials. Otherwise the stack npm start runs
(PLATFORM_DATA_DIR, default .data).`;

const { positionals, values } = cliArgs(USAGE, {
  org: { type: "string" },
  email: { type: "string" },
  "first-name": { type: "string" },
  "last-name": { type: "string" },
  roles: { type: "string" },
  user: { type: "string" },
  workspace: { type: "string" },
  name: { type: "string" },
});

const [command] = positionals;
if (!command || !["create", "list", "add", "key"].includes(command)) fail(`${command ? `Unknown command '${command}'.\n\n` : ""}${USAGE}`);
useTablesOrLocalStack("tenancy", { audited: true });

// Loaded after the environment is settled: the SDK clients are built from it.
const users = await import("../shared/services/identity/users.js");
const { ApiError } = await import("../shared/domain/errors.js");

const roles = () => values.roles?.split(",").map((r) => r.trim()).filter(Boolean) ?? [];
const need = (name: "email" | "user" | "workspace"): string => values[name] ?? fail(`${command} needs --${name}\n${USAGE}`);

/** The organization named, or the only one there is. */
const organization = () => organizationOf(values.org);

try {
  switch (command) {
    case "create": {
      const user = await users.createUser({ organization: await organization(), email: need("email"), firstName: values["first-name"], lastName: values["last-name"], organizationRoles: roles() });
      console.log(`User id:      ${user.id}`);
      console.log(`Organization: ${user.organization}`);
      console.log(`Email:        ${user.email}`);
      console.log(`Roles:        ${user.organizationRoles.join(", ")}`);
      break;
    }
    case "list": {
      printTable((await users.listUsers(await organization())).map((u) => ({ id: u.id, email: u.email, first: u.firstName ?? "", last: u.lastName ?? "", roles: u.organizationRoles.join(","), created: u.createdAt })));
      break;
    }
    case "add": {
      const outcome = await users.addToWorkspace({ organization: await organization(), workspace: need("workspace"), user: need("user"), roles: roles() });
      console.log(`${outcome === "added" ? "Added" : "Updated"} ${values.user} in workspace ${values.workspace} with roles ${roles().join(", ") || "user"}.`);
      break;
    }
    case "key": {
      const { key, record } = await users.createUserKey({ organization: await organization(), workspace: need("workspace"), user: need("user"), name: values.name });
      console.log(`Key id:       ${record.keyId}`);
      console.log(`User:         ${record.principal}`);
      console.log(`Organization: ${record.organization}`);
      console.log(`Workspace:    ${record.workspace}`);
      console.log(`API key:      ${key}`);
      console.error("The key is shown only this once; only its hash is stored.");
      break;
    }
  }
} catch (error) {
  if (error instanceof ApiError) fail(error.message);
  throw error;
}
