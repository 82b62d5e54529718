import { moderate } from "../model-replies.js";
import { route } from "../route.js";
import { ModerationRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ModerationRequest }, ({ body, caller, requestId, signal, route }) => moderate({ caller, requestId, signal, route }, body));
