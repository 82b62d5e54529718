import * as users from "../../shared/services/identity/users.js";
import { Reply } from "../../shared/http/reply.js";
import { CreateUserBody, UserOut } from "../../shared/schemas/user.js";
import { route } from "../route.js";

// Extension (docs/decisions/0073-users-and-api-keys-over-the-api.md): 201 with the user; a taken address is a 409.
export const handler = route({ body: CreateUserBody, response: UserOut }, async ({ body, caller }) =>
  Reply.json(201, UserOut.parse(users.toUserOut(await users.createOrganizationUser(caller, body)))),
);
