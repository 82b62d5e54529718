import * as workers from "../../shared/services/workflows/workers.js";
import { WhoamiOut } from "../../shared/schemas/workers.js";
import { route } from "../route.js";

export const handler = route({ response: WhoamiOut }, async ({ caller }) => workers.whoami(caller));
