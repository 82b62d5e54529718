import * as catalog from "../../shared/services/models/catalog.js";
import { route } from "../route.js";
import { ModelParams } from "../../shared/schemas/model.js";

export const handler = route({ params: ModelParams }, async ({ params, caller }) => {
  const model = await catalog.setArchived(caller, params.model_id, true);
  return { id: model.id, object: "model", archived: model.archived };
});
