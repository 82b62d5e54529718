/**
 * Hardening of workflow deployments from the command line (`npm run principals -- --help`): which API keys
 * or service accounts alone may register, poll and call tasks in a deployment. Logic in
 * scripts/deployments/principals-cli.ts.
 */
import { apiTarget } from "./cli-target.js";
import { principalsCli } from "./deployments/principals-cli.js";

process.exitCode = await principalsCli(process.argv.slice(2), { out: console.log, err: console.error, target: apiTarget });
