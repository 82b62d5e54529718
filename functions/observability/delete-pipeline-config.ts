import { Reply } from "../../shared/http/reply.js";
import { PipelineConfigParams } from "../../shared/schemas/observability/pipelines.js";
import { deletePipelineConfig } from "../../shared/services/observability/pipelines.js";
import { route } from "../route.js";

export const handler = route({ params: PipelineConfigParams }, async ({ params, caller }) => {
  await deletePipelineConfig(caller, params.pipeline_config_id);
  return Reply.empty(204);
});
