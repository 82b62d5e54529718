import { PipelineConfigListOut, PipelineConfigListQuery } from "../../shared/schemas/observability/pipelines.js";
import { listPipelineConfigs } from "../../shared/services/observability/pipelines.js";
import { route } from "../route.js";

export const handler = route({ query: PipelineConfigListQuery, response: PipelineConfigListOut }, ({ query, caller }) => listPipelineConfigs(caller, query));
