import { PipelinesOut } from "../../shared/schemas/retrieval.js";
import { listPipelines } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

export const handler = route({ response: PipelinesOut }, ({ caller }) => listPipelines(caller));
