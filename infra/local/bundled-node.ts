import { join, resolve } from "node:path";

/** Node 22 from the registry's `node` package (a devDependency): the nodejs22.x runtime's major version. */
export const NODE22 = join(resolve(import.meta.dirname, "../.."), "node_modules", "node", "bin", "node");
export const BUNDLED_NODE_MAJOR = 22;

/** `npm start -- --bundled` or PLATFORM_BUNDLED=1. */
export const bundledRequested = (argv = process.argv, env = process.env) => argv.includes("--bundled") || /^(1|true|on|yes)$/i.test(env.PLATFORM_BUNDLED ?? "");
