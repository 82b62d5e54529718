import { PipelineConfigOut, PipelineConfigParams } from "../../shared/schemas/observability/pipelines.js";
import { getPipelineConfig } from "../../shared/services/observability/pipelines.js";
import { route } from "../route.js";

export const handler = route({ params: PipelineConfigParams, response: PipelineConfigOut }, ({ params, caller }) => getPipelineConfig(caller, params.pipeline_config_id));
