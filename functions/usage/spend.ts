import { route } from "../route.js";
import { spendOf } from "../../shared/services/usage/report.js";
import { SpendOut } from "../../shared/schemas/usage.js";

export const handler = route({ response: SpendOut }, ({ caller }) => spendOf(caller));
