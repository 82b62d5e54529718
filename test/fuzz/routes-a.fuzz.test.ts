/** The fuzz ring over the files, models, inference and batch rows (the rest: routes-b.fuzz.test.ts). */
import { areaOf, routes } from "../../functions/routes.js";
import { fuzzSuite } from "../support/fuzz-suite.js";


const SHARE_A = new Set(["files", "models", "inference", "batch"]);

fuzzSuite("files, models, inference, batch", routes.filter((row) => SHARE_A.has(areaOf(row))));
