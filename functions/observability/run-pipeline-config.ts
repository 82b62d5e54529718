import { PipelineConfigParams, PipelineRunOut } from "../../shared/schemas/observability/pipelines.js";
import { runPipelineConfig } from "../../shared/services/observability/pipelines.js";
import { route } from "../route.js";

/** One sweep of the pipeline now (an extension, decision 65): what it read, wrote and failed. */
export const handler = route({ params: PipelineConfigParams, response: PipelineRunOut }, ({ params, caller, requestId, route, signal }) =>
  runPipelineConfig({ caller, requestId, route, signal }, params.pipeline_config_id),
);
