import { Reply } from "../../shared/http/reply.js";
import { CreatePipelineConfigBody, PipelineConfigOut } from "../../shared/schemas/observability/pipelines.js";
import { createPipelineConfig } from "../../shared/services/observability/pipelines.js";
import { route } from "../route.js";

// 201: the SDK rejects a 200 here.
export const handler = route({ body: CreatePipelineConfigBody, returns: PipelineConfigOut }, async ({ body, caller }) => Reply.json(201, PipelineConfigOut.parse(await createPipelineConfig(caller, body))));
