import { PipelineConfigOut, PipelineConfigParams, UpdatePipelineConfigBody } from "../../shared/schemas/observability/pipelines.js";
import { updatePipelineConfig } from "../../shared/services/observability/pipelines.js";
import { route } from "../route.js";

/** 200 PipelineConfig, as the SDK expects: the whole configuration is replaced (`enabled` too); it keeps its id. */
export const handler = route({ params: PipelineConfigParams, body: UpdatePipelineConfigBody, response: PipelineConfigOut }, ({ params, body, caller }) => updatePipelineConfig(caller, params.pipeline_config_id, body));
