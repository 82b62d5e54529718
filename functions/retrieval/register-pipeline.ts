import { PipelineOut, RegisterPipelineBody } from "../../shared/schemas/retrieval.js";
import { registerPipeline } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

export const handler = route({ body: RegisterPipelineBody, response: PipelineOut }, ({ body, caller }) => registerPipeline(caller, body));
