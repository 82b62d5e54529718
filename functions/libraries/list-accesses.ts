import * as accesses from "../../shared/services/libraries/accesses.js";
import { route } from "../route.js";
import { LibraryParams, ListSharingOut } from "../../shared/schemas/library.js";

export const handler = route({ params: LibraryParams, response: ListSharingOut }, ({ params, caller }) => accesses.list(caller, params.library_id));
