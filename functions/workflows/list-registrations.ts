import * as workflows from "../../shared/services/workflows/workflows.js";
import { RegistrationListOut, RegistrationListQuery } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** `workflow_versions` is the deprecated name of the same list, sent alongside it. */
export const handler = route({ query: RegistrationListQuery, response: RegistrationListOut }, async ({ query, caller }) => {
  const page = await workflows.listRegistrations(caller, query);
  const registrations = page.registrations.map(({ registration, workflow }) => workflows.toRegistrationOut(registration, workflow));
  return { workflow_registrations: registrations, next_cursor: page.nextCursor, workflow_versions: registrations };
});
