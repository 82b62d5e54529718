import * as catalog from "../../shared/services/models/catalog.js";
import { toFineTunedModel } from "../../shared/domain/models.js";
import { route } from "../route.js";
import { ModelParams, UpdateModelBody } from "../../shared/schemas/model.js";

export const handler = route({ params: ModelParams, body: UpdateModelBody }, async ({ params, body, caller }) =>
  toFineTunedModel(await catalog.update(caller, params.model_id, body)),
);
