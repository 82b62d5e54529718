import { buildApp } from "../app.js";
import { buildHandlers } from "../build.js";

// One esbuild pass for every handler; the stacks then ship the built folders as they are.
await buildHandlers();
buildApp().app.synth();
