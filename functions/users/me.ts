import * as users from "../../shared/services/identity/users.js";
import { UserIdentityOut } from "../../shared/schemas/user.js";
import { route } from "../route.js";

export const handler = route({ response: UserIdentityOut }, ({ caller }) => users.identity(caller));
