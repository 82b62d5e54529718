// The `node` devDependency is Node 22 for the bundled run only (infra/local/bundled-node.ts runs
// node_modules/node/bin/node by path). npm also links it as node_modules/.bin/node, which every npm script
// and npx puts first on PATH: npm test and npm start would silently move to it. The link goes; the binary stays.
import { rmSync } from "node:fs";

rmSync(new URL("../node_modules/.bin/node", import.meta.url), { force: true });
