import * as catalog from "../../shared/services/models/catalog.js";
import { toModelCard } from "../../shared/domain/models.js";
import { route } from "../route.js";
import { ModelListQuery } from "../../shared/schemas/model.js";

export const handler = route({ query: ModelListQuery }, async ({ query, caller }) => ({
  object: "list",
  data: (await catalog.list(caller, query)).map(toModelCard),
}));
