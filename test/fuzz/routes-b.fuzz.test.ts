/** The fuzz ring over every row routes-a.fuzz.test.ts does not take: agents, prompts, skills, and any new area. */
import { areaOf, routes } from "../../functions/routes.js";
import { fuzzSuite } from "../support/fuzz-suite.js";

const SHARE_A = new Set(["files", "models", "inference", "batch"]);

fuzzSuite("every other area", routes.filter((row) => !SHARE_A.has(areaOf(row))));
