import * as catalog from "../../shared/services/models/catalog.js";
import { toModelCard } from "../../shared/domain/models.js";
import { route } from "../route.js";
import { ModelParams } from "../../shared/schemas/model.js";

export const handler = route({ params: ModelParams }, async ({ params, caller }) => toModelCard(await catalog.resolve(caller, params.model_id)));
