import { PipelineOut, PipelineParams, RunInfoBody } from "../../shared/schemas/retrieval.js";
import { updateRunInfo } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

export const handler = route({ params: PipelineParams, body: RunInfoBody, response: PipelineOut }, ({ params, body, caller }) => updateRunInfo(caller, params.id, body));
